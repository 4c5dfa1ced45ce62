#pragma once
// The little dense linear algebra the Gaussian process needs: Cholesky
// factorisation of a symmetric positive-definite matrix and triangular solves.

#include <cstddef>
#include <span>
#include <vector>

namespace volador::search {

// A square matrix, row-major.
class Matrix {
 public:
  explicit Matrix(std::size_t n = 0) : n_(n), a_(n * n, 0.0) {}
  [[nodiscard]] std::size_t size() const { return n_; }
  double& operator()(std::size_t i, std::size_t j) { return a_[i * n_ + j]; }
  double operator()(std::size_t i, std::size_t j) const { return a_[i * n_ + j]; }

 private:
  std::size_t n_;
  std::vector<double> a_;
};

// Replaces the lower triangle of `a` by L with L L^T = a (the upper triangle
// is left as is); false when `a` is not (numerically) positive definite.
bool cholesky(Matrix& a);
// Solves L x = b in place (L from cholesky()).
void solve_lower(const Matrix& l, std::span<double> b);
// Solves L^T x = b in place.
void solve_lower_transposed(const Matrix& l, std::span<double> b);
// (L L^T)^-1, full (both triangles).
Matrix cholesky_inverse(const Matrix& l);

}  // namespace volador::search
