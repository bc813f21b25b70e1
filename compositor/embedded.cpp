// EmbeddedServer: kiln's Server on a thread of its own, driven by its host through a task queue and an eventfd.
#include "compositor/indexed_list.hpp"
#include "compositor/embedded.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/input/touch_events.hpp"
#include "compositor/listener.hpp"
#include "compositor/server.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <list>
#include <mutex>
#include <thread>

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kiln::compositor {

namespace {

uint32_t now_msec()
{
    using namespace std::chrono;
    return static_cast<uint32_t>(duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}

}  // namespace

// The thread, its queue, and what lives on the thread: the server, the host's devices, clients and touch points.
// Members after `wake_fd_` are touched only on the compositor's thread.
class EmbeddedServer::Loop {
public:
    explicit Loop(Options options) : options_(std::move(options))
    {
        options_.backend = BackendChoice::headless;
        options_.embedded = true;
        options_.startup.clear();
        options_.exit_with_startup = false;
        // The host's keys are its clients' alone: no binding starts a terminal, switches VT or quits.
        options_.bindings.bindings.clear();
        options_.test_input = false;
    }
    ~Loop() { stop(); }
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    bool start(std::string& error)
    {
        if (thread_.joinable())
            return true;
        wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (wake_fd_ < 0) {
            error = std::string("cannot create an eventfd: ") + std::strerror(errno);
            return false;
        }
        std::promise<std::string> started;
        std::future<std::string> outcome = started.get_future();
        thread_ = std::thread([this, &started] { run(started); });
        error = outcome.get();
        if (error.empty())
            return true;
        thread_.join();
        close(wake_fd_);
        wake_fd_ = -1;
        return false;
    }

    void stop()
    {
        if (!thread_.joinable())
            return;
        call([](Loop& loop) { loop.server_->terminate(0); });
        thread_.join();
        close(wake_fd_);
        wake_fd_ = -1;
    }

    bool running() const
    {
        std::lock_guard lock(mutex_);
        return accepting_;  // false as soon as the loop ended, even on its own (the backend went away)
    }

    // Runs `work` on the compositor's thread and waits until it has. The lock guards the queue only while a task is
    // added or taken, never while one runs; false when the server is not running (nothing ran).
    bool call(const std::function<void(Loop&)>& work)
    {
        std::promise<void> done;
        std::future<void> finished = done.get_future();
        {
            std::lock_guard lock(mutex_);
            if (!accepting_)
                return false;
            tasks_.push_back([this, &work, &done] {
                work(*this);
                done.set_value();
            });
        }
        eventfd_write(wake_fd_, 1);
        finished.wait();
        return true;
    }

    // On the compositor's thread, from here on.

    int add_client(int server_fd, int host_fd)
    {
        wl_client* client = wl_client_create(server_->display(), server_fd);
        if (!client)
            return -1;
        auto& entry = clients_.emplace_back(std::make_unique<Client>());
        entry->host_fd = host_fd;
        entry->client = client;
        entry->destroyed.connect_client_destroy(client, [this, raw = entry.get()](void*) {
            clients_.erase(raw);
        });
        return host_fd;
    }

    bool place_window(int client_fd, uint32_t surface_id, int x, int y)
    {
        wl_client* client = nullptr;
        for (const auto& entry : clients_)
            if (entry->host_fd == client_fd)
                client = entry->client;
        wl_resource* resource = client ? wl_client_get_object(client, surface_id) : nullptr;
        if (!resource || std::strcmp(wl_resource_get_class(resource), "wl_surface") != 0)
            return false;
        wlr_surface* surface = wlr_surface_from_resource(resource);
        View* view = View::from(surface);
        if (!view)
            return false;
        view->move_to(x, y);
        return true;
    }

    void pointer_move_to(double x, double y)
    {
        wlr_event_pointer_motion_absolute event{pointer_, now_msec(), 0, 0};
        if (!layout_fraction(x, y, event.x, event.y))
            return;
        wl_signal_emit(&pointer_->pointer->events.motion_absolute, &event);
        wl_signal_emit(&pointer_->pointer->events.frame, pointer_->pointer);
    }

    void pointer_move_by(double dx, double dy)
    {
        wlr_event_pointer_motion event{pointer_, now_msec(), dx, dy, dx, dy};
        wl_signal_emit(&pointer_->pointer->events.motion, &event);
        wl_signal_emit(&pointer_->pointer->events.frame, pointer_->pointer);
    }

    void pointer_button(uint32_t button, bool pressed)
    {
        wlr_event_pointer_button event{pointer_, now_msec(), button,
                                       pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED};
        wl_signal_emit(&pointer_->pointer->events.button, &event);
        wl_signal_emit(&pointer_->pointer->events.frame, pointer_->pointer);
    }

    void key(uint32_t keycode, bool pressed)
    {
        wlr_event_keyboard_key event{now_msec(), keycode, true,
                                     pressed ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED};
        wlr_keyboard_notify_key(keyboard_->keyboard, &event);
    }

    // Touch raises the events a touchscreen would on the host's touch device, in its 0..1 range over the layout, so
    // it takes kiln's own path (compositor/input/touch.cpp) through the cursor and the seat. The ids are the host's.
    void touch_down(int32_t id, double x, double y)
    {
        double fx = 0, fy = 0;
        if (!layout_fraction(x, y, fx, fy))
            return;
        touch_events::down(touch_, id, fx, fy);
        touch_events::frame(touch_);
    }

    void touch_move(int32_t id, double x, double y)
    {
        double fx = 0, fy = 0;
        if (!layout_fraction(x, y, fx, fy))
            return;
        touch_events::motion(touch_, id, fx, fy);
        touch_events::frame(touch_);
    }

    void touch_up(int32_t id)
    {
        touch_events::up(touch_, id);
        touch_events::frame(touch_);
    }

private:
    // wlroots takes absolute positions (a tablet's, a touchscreen's) as fractions of the layout's box.
    bool layout_fraction(double x, double y, double& fx, double& fy) const
    {
        const wlr_box* box = wlr_output_layout_get_box(server_->layout(), nullptr);
        if (!box || box->width <= 0 || box->height <= 0)
            return false;
        fx = (x - box->x) / box->width;
        fy = (y - box->y) / box->height;
        return true;
    }

    // A client the host added, known by the host's end of its socketpair.
    struct Client {
        int host_fd = -1;
        wl_client* client = nullptr;
        wl::Listener destroyed;
    };

    void run(std::promise<std::string>& started)
    {
        Stats stats(Stats::Clock::now());
        auto server = std::make_unique<Server>(options_, stats);
        std::string error;
        if (!server->start(error)) {
            started.set_value(error.empty() ? "kiln did not start" : error);
            return;
        }
        server_ = server.get();
        // The host's devices, before any client: they are in the seat's capabilities from a client's first look.
        keyboard_ = wlr_headless_add_input_device(server->backend(), WLR_INPUT_DEVICE_KEYBOARD);
        pointer_ = wlr_headless_add_input_device(server->backend(), WLR_INPUT_DEVICE_POINTER);
        touch_ = wlr_headless_add_input_device(server->backend(), WLR_INPUT_DEVICE_TOUCH);
        wl_event_loop* loop = wl_display_get_event_loop(server->display());
        wl_event_source* wake = wl_event_loop_add_fd(loop, wake_fd_, WL_EVENT_READABLE, &Loop::on_wake, this);
        if (!keyboard_ || !pointer_ || !touch_ || !wake) {
            if (wake)
                wl_event_source_remove(wake);
            server_ = nullptr;
            started.set_value("cannot create the embedded server's input devices or its wake-up source");
            return;
        }
        {
            std::lock_guard lock(mutex_);
            accepting_ = true;
        }
        started.set_value({});  // the host's promise: not touched after this

        server->run();

        {
            std::lock_guard lock(mutex_);
            accepting_ = false;
        }
        run_tasks();  // any queued before the queue closed
        wl_event_source_remove(wake);
        clients_.clear();
        server.reset();  // disconnects the clients; the backend takes the devices with it
        server_ = nullptr;
        keyboard_ = pointer_ = touch_ = nullptr;
    }

    static int on_wake(int fd, uint32_t, void* data) noexcept
    {
        eventfd_t count = 0;
        eventfd_read(fd, &count);
        static_cast<Loop*>(data)->run_tasks();
        return 0;
    }

    void run_tasks()
    {
        for (;;) {
            std::function<void()> task;
            {
                std::lock_guard lock(mutex_);
                if (tasks_.empty())
                    return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }

    Options options_;
    std::thread thread_;
    mutable std::mutex mutex_;
    std::deque<std::function<void()>> tasks_;  // guarded by mutex_
    bool accepting_ = false;                   // guarded by mutex_
    int wake_fd_ = -1;

    Server* server_ = nullptr;
    wlr_input_device* keyboard_ = nullptr;
    wlr_input_device* pointer_ = nullptr;
    wlr_input_device* touch_ = nullptr;
    IndexedList<std::unique_ptr<Client>> clients_;
};

EmbeddedServer::EmbeddedServer(Options options) : loop_(std::make_unique<Loop>(std::move(options))) {}

EmbeddedServer::~EmbeddedServer() = default;

bool EmbeddedServer::start(std::string& error)
{
    return loop_->start(error);
}

void EmbeddedServer::stop()
{
    loop_->stop();
}

bool EmbeddedServer::running() const
{
    return loop_->running();
}

int EmbeddedServer::add_client()
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return -1;
    int result = -1;
    loop_->call([&](Loop& loop) { result = loop.add_client(fds[0], fds[1]); });
    if (result < 0) {
        close(fds[0]);
        close(fds[1]);
    }
    return result;
}

bool EmbeddedServer::place_window(int client_fd, uint32_t surface_id, int x, int y)
{
    bool placed = false;
    loop_->call([&](Loop& loop) { placed = loop.place_window(client_fd, surface_id, x, y); });
    return placed;
}

void EmbeddedServer::pointer_move_to(double x, double y)
{
    loop_->call([=](Loop& loop) { loop.pointer_move_to(x, y); });
}

void EmbeddedServer::pointer_move_by(double dx, double dy)
{
    loop_->call([=](Loop& loop) { loop.pointer_move_by(dx, dy); });
}

void EmbeddedServer::pointer_button(uint32_t button, bool pressed)
{
    loop_->call([=](Loop& loop) { loop.pointer_button(button, pressed); });
}

void EmbeddedServer::key(uint32_t keycode, bool pressed)
{
    loop_->call([=](Loop& loop) { loop.key(keycode, pressed); });
}

void EmbeddedServer::touch_down(int32_t id, double x, double y)
{
    loop_->call([=](Loop& loop) { loop.touch_down(id, x, y); });
}

void EmbeddedServer::touch_move(int32_t id, double x, double y)
{
    loop_->call([=](Loop& loop) { loop.touch_move(id, x, y); });
}

void EmbeddedServer::touch_up(int32_t id)
{
    loop_->call([=](Loop& loop) { loop.touch_up(id); });
}

}  // namespace kiln::compositor
