// Queries: keys, descriptions and dispatch onto a Validator (io/query.hpp).
#include "io/query.hpp"

namespace c3::validator {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
// Spelled out for compilers without aggregate deduction (clang before 17).
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

std::string collective_key(const Collective& c) {
  return std::string(to_string(c.kind)) + " size_bytes=" + std::to_string(c.size_bytes) +
         " ranks=" + std::to_string(c.ranks);
}

}  // namespace

std::string_view what(const Query& query) {
  return std::visit(Overloaded{[](const GemmQuery&) { return std::string_view("gemm"); },
                               [](const CollectiveQuery&) { return std::string_view("collective"); },
                               [](const ConcurrentQuery&) { return std::string_view("concurrent"); },
                               [](const CopyQuery&) { return std::string_view("copy"); }},
                    query);
}

std::string measurement_key(const Query& query) {
  return std::visit(
      Overloaded{
          [](const GemmQuery& q) {
            return "gemm " + format_gemm(q.gemm) + " cus_removed=" + std::to_string(q.cus_removed);
          },
          [](const CollectiveQuery& q) {
            return "collective " + collective_key(q.collective) +
                   " transport=" + std::string(to_string(q.transport)) +
                   " cus=" + std::to_string(q.cus);
          },
          [](const ConcurrentQuery& q) {
            std::string key = "concurrent " + format_gemm(q.gemm) + " " + collective_key(q.collective) +
                              " strategy=" + q.strategy.label();
            if (q.dependency != Dependency::none) key += " dependency=" + std::string(to_string(q.dependency));
            return key;
          },
          [](const CopyQuery& q) {
            return "copy " + std::string(to_string(q.path)) +
                   " size_bytes=" + std::to_string(q.size_bytes);
          }},
      query);
}

std::string describe(const Query& query) {
  return std::visit(
      Overloaded{
          [](const GemmQuery& q) {
            return "gemm " + format_gemm(q.gemm) + " removed=" + std::to_string(q.cus_removed);
          },
          [](const CollectiveQuery& q) {
            std::string out = "collective " + std::string(to_string(q.collective.kind)) + " " +
                              format_size(q.collective.size_bytes) + " " +
                              std::string(to_string(q.transport));
            if (q.transport == Transport::cu) out += " cus=" + std::to_string(q.cus);
            return out;
          },
          [](const ConcurrentQuery& q) {
            const char* link = q.dependency == Dependency::collective_feeds_gemm   ? " <- "
                               : q.dependency == Dependency::gemm_feeds_collective ? " -> "
                                                                                   : " + ";
            return "concurrent " + format_gemm(q.gemm) + link + std::string(to_string(q.collective.kind)) + " " +
                   format_size(q.collective.size_bytes) + " " + q.strategy.label();
          },
          [](const CopyQuery& q) {
            return "copy " + std::string(to_string(q.path)) + " " + format_size(q.size_bytes);
          }},
      query);
}

Measurement run(Validator& validator, const Query& query) {
  return std::visit(
      Overloaded{[&](const GemmQuery& q) { return validator.gemm(q.gemm, q.cus_removed); },
                 [&](const CollectiveQuery& q) {
                   return validator.collective(q.collective, q.transport, q.cus);
                 },
                 [&](const ConcurrentQuery& q) {
                   C3Pair pair;
                   pair.gemm = q.gemm;
                   pair.collective = q.collective;
                   pair.dependency = q.dependency;
                   return validator.concurrent(pair, q.strategy);
                 },
                 [&](const CopyQuery& q) { return validator.copy(q.path, q.size_bytes); }},
      query);
}

}  // namespace c3::validator
