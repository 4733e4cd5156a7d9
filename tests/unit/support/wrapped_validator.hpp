// A Validator wrapper for tests: forwards to another backend and, per call,
// passes, crashes (a non-c3 exception, as a killed process) or fails (BackendError).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "c3/errors.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

// Forwards to another validator; `fail` decides per call number (0-based) whether
// to crash (throw a non-c3 exception, as a killed process would stop) or to fail.
class WrappedValidator final : public Validator {
 public:
  enum class Action { pass, crash, fail };
  WrappedValidator(std::unique_ptr<Validator> inner, std::function<Action(int, const std::string&)> decide)
      : inner_(std::move(inner)), decide_(std::move(decide)) {}

 private:
  template <class Call>
  Measurement forward(const std::string& what, Call call) {
    switch (decide_(calls_++, what)) {
      case Action::crash:
        throw std::runtime_error("simulated crash");
      case Action::fail:
        throw BackendError("simulated GPU failure");
      case Action::pass:
        break;
    }
    return call();
  }
  Capabilities do_capabilities() const override { return inner_->capabilities(); }
  Measurement do_gemm(const Gemm& g, int r) override {
    return forward("gemm", [&] { return inner_->gemm(g, r); });
  }
  Measurement do_collective(const Collective& c, Transport t, int cus) override {
    return forward("collective", [&] { return inner_->collective(c, t, cus); });
  }
  Measurement do_concurrent(const C3Pair& p, const Strategy& s) override {
    return forward("concurrent", [&] { return inner_->concurrent(p, s); });
  }
  Measurement do_copy(CopyPath path, std::int64_t size) override {
    return forward(std::string("copy ") + std::string(to_string(path)),
                   [&] { return inner_->copy(path, size); });
  }

  std::unique_ptr<Validator> inner_;
  std::function<Action(int, const std::string&)> decide_;
  int calls_ = 0;
};

}  // namespace c3::validator
