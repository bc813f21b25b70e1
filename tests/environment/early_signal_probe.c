/* An LD_PRELOAD probe: its constructor sends the process the signal named in $KILN_EARLY_SIGNAL (TERM, INT or HUP)
 * while the libraries' constructors run, before main: a signal that comes in kiln's first milliseconds, at a moment
 * a test can name. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void send_early_signal(void)
{
    const char* name = getenv("KILN_EARLY_SIGNAL");
    if (!name)
        return;
    const int sig = strcmp(name, "TERM") == 0 ? SIGTERM : strcmp(name, "INT") == 0 ? SIGINT
                  : strcmp(name, "HUP") == 0  ? SIGHUP  : 0;
    if (sig)
        kill(getpid(), sig);
}
