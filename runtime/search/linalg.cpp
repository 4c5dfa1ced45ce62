#include "runtime/search/linalg.hpp"

#include <cmath>

namespace volador::search {

bool cholesky(Matrix& a) {
  const std::size_t n = a.size();
  for (std::size_t j = 0; j < n; ++j) {
    double d = a(j, j);
    for (std::size_t k = 0; k < j; ++k) d -= a(j, k) * a(j, k);
    if (!(d > 0)) return false;
    const double ljj = std::sqrt(d);
    a(j, j) = ljj;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= a(i, k) * a(j, k);
      a(i, j) = s / ljj;
    }
  }
  return true;
}

void solve_lower(const Matrix& l, std::span<double> b) {
  for (std::size_t i = 0; i < l.size(); ++i) {
    double s = b[i];
    for (std::size_t k = 0; k < i; ++k) s -= l(i, k) * b[k];
    b[i] = s / l(i, i);
  }
}

void solve_lower_transposed(const Matrix& l, std::span<double> b) {
  for (std::size_t i = l.size(); i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < l.size(); ++k) s -= l(k, i) * b[k];
    b[i] = s / l(i, i);
  }
}

Matrix cholesky_inverse(const Matrix& l) {
  const std::size_t n = l.size();
  Matrix m(n);  // L^-1, lower triangular, by forward substitution per column
  for (std::size_t j = 0; j < n; ++j) {
    m(j, j) = 1.0 / l(j, j);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = 0;
      for (std::size_t k = j; k < i; ++k) s -= l(i, k) * m(k, j);
      m(i, j) = s / l(i, i);
    }
  }
  Matrix inv(n);  // (L L^T)^-1 = L^-T L^-1
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double s = 0;
      for (std::size_t k = i; k < n; ++k) s += m(k, i) * m(k, j);
      inv(i, j) = inv(j, i) = s;
    }
  return inv;
}

}  // namespace volador::search
