// Directed tests write functional coverage too (docs/verification.md, "Functional
// coverage bins"): with QPM_FCOV_DIR set, every QpmEnv a test makes samples into one
// FuncCoverage for the process, written at the end of the run as
// $QPM_FCOV_DIR/fcov-<pid>.json (ctest runs each test case in a process of its own).
// make test sets it; make regress adds those files to the nightly's merged report.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

// The listener interface of Catch2 v2 is declared only with this macro.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include "func_coverage.h"
#include "qpm_env.h"

namespace {

class FcovListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testRunStarting(const Catch::TestRunInfo &) override {
    const char *dir = std::getenv("QPM_FCOV_DIR");
    if (dir == nullptr || *dir == '\0') return;
    dir_ = dir;
    coverage_ = std::make_unique<qpm::FuncCoverage>();
    qpm::QpmEnv::set_suite_coverage(coverage_.get());
  }

  void testRunEnded(const Catch::TestRunStats &) override {
    if (!coverage_) return;
    qpm::QpmEnv::set_suite_coverage(nullptr);
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    const std::string path = dir_ + "/fcov-" + std::to_string(::getpid()) + ".json";
    std::ofstream out(path);
    out << coverage_->to_json() << "\n";
    if (!out) std::cerr << "qpm_tests: cannot write " << path << "\n";
  }

 private:
  std::string dir_;
  std::unique_ptr<qpm::FuncCoverage> coverage_;
};

}  // namespace

CATCH_REGISTER_LISTENER(FcovListener)
