// The Qt 5 QML app of the clients suite: a 320x240 magenta rectangle with a line of text, a colour the test looks for.
import QtQuick 2.0

Rectangle {
    width: 320
    height: 240
    color: "#ff00ff"

    Text {
        anchors.centerIn: parent
        text: "kiln"
        font.pixelSize: 40
        color: "#000000"
    }
}
