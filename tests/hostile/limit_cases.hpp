// The hostile cases that go after kiln's resources rather than its protocol checks: many objects, shm pools and
// security contexts from one client, and a freeze when a client with many surfaces leaves.
#pragma once

#include "tests/hostile/hostile_connection.hpp"

#include <functional>
#include <map>
#include <string>

namespace kiln::hostile {

using Case = std::function<std::string(Connection&)>;

// By name; each prints what it measured on the way and returns the outcome line of its own connection.
const std::map<std::string, Case>& limit_cases();

}  // namespace kiln::hostile
