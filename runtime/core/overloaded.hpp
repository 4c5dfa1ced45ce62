#pragma once
// One callable from several lambdas, for std::visit over a variant:
// std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, value).

namespace volador {

template <class... Handlers>
struct Overloaded : Handlers... {
  using Handlers::operator()...;
};

}  // namespace volador
