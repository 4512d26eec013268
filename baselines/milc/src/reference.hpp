// The port's CPU reference, in f64 and independent of the kernels: the
// Wilson-Dirac operator written from its definition with dense gamma
// matrices, on fields in Skylight's logical order (as its wilson.rs):
//   spinor: site * 24 + (spin * 3 + colour) * 2 + reim
//   links:  site * 72 + mu * 18 + (row * 3 + col) * 2 + reim   (U_mu(x): x -> x + mu)
// site = x + L (y + L (z + L t)). Loops over sites run on OpenMP threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ref {

/// Reals per site of a spinor and of the links.
constexpr int SPINOR = 24, LINKS = 72;

/// A periodic L^3 x T lattice.
struct Lattice {
    long l, t;
    long sites() const { return l * l * l * t; }
    /// The site one step forward (or back) along mu.
    long neighbour(long site, int mu, bool forward) const;
};

/// n uniform reals in [-1, 1) from `seed` (chunks draw from their own streams, in parallel).
void random_reals(uint64_t seed, double* v, size_t n);

/// Random SU(3) links (Gram-Schmidt of random complex rows, third row the
/// conjugated cross product), as Skylight draws them.
void random_links(uint64_t seed, double* u, long sites);

/// out = D psi (isign 1) or D^dagger psi (isign -1).
void dslash(const Lattice& lat, const double* u, const double* psi, int isign, double* out);

/// out = psi - kappa D psi (isign 1) or the same with D^dagger.
void apply_m(const Lattice& lat, const double* u, const double* psi, double kappa, int isign, double* out);

/// Re <a, b> over n reals.
double dot(const double* a, const double* b, size_t n);

/// |M x - b| / |b|.
double true_residual(const Lattice& lat, const double* u, const double* x, const double* b, double kappa);

/// Largest |got - want| / max(|want|, floor), where, and how many got are not finite.
struct Compare {
    double max_error;
    size_t worst;
    size_t nonfinite;
};
Compare compare(const double* got, const double* want, size_t n, double floor);

/// Checks of the reference itself on a small lattice: the gamma matrices
/// (Hermitian, Clifford algebra, gamma5 = diag(1, 1, -1, -1)), SU(3) links,
/// <y, D x> = <D^dagger y, x> and gamma5 D gamma5 = D^dagger. Appends one
/// line per check to `report`; false if one fails.
bool self_checks(std::string& report);

}  // namespace ref
