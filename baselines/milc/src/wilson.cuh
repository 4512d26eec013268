// The port's Wilson-Dirac algebra, shared by the CUDA kernels and the host
// emulation of them (--cpu-only): complex numbers as float2/double2, the
// gamma matrices as a (column, phase) table, the site geometry of Skylight's
// milc app, and D applied at one site.
//
// D psi(x) = sum_mu [(1 - s gamma_mu) U_mu(x) psi(x + mu)
//                   + (1 + s gamma_mu) U_mu^dagger(x - mu) psi(x - mu)],
// s = +1 for D, -1 for D^dagger (MILC's isign), DeGrand-Rossi basis,
// periodic L^3 x T lattice, site = x + L (y + L (z + L t)).
//
// Fields are complex-SoA: component k of site i is at [k * sites + i], so the
// threads of a warp (consecutive sites) load consecutive float2/double2.
// Spinor k = spin * 3 + colour (12 per site); link k = mu * 9 + row * 3 + col
// (36 per site), U_mu(x) taking x + mu to x.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#define HD __host__ __device__ __forceinline__

namespace port {

template <class R> struct Cplx;
template <> struct Cplx<float> { using T = float2; };
template <> struct Cplx<double> { using T = double2; };
/// A complex number of precision R.
template <class R> using C = typename Cplx<R>::T;

template <class R> HD C<R> mk(R re, R im) {
    C<R> z;
    z.x = re;
    z.y = im;
    return z;
}
template <class T> HD T cadd(T a, T b) {
    a.x += b.x;
    a.y += b.y;
    return a;
}
template <class T> HD T csub(T a, T b) {
    a.x -= b.x;
    a.y -= b.y;
    return a;
}
/// a b + c.
template <class T> HD T cfma(T a, T b, T c) {
    c.x += a.x * b.x - a.y * b.y;
    c.y += a.x * b.y + a.y * b.x;
    return c;
}
/// conj(a) b + c.
template <class T> HD T cjfma(T a, T b, T c) {
    c.x += a.x * b.x + a.y * b.y;
    c.y += a.x * b.y - a.y * b.x;
    return c;
}

/// z times i^PH (PH mod 4): a swap and signs, no arithmetic.
template <int PH, class T> HD T phase(T z) {
    constexpr int p = PH & 3;
    if constexpr (p == 0) return z;
    else if constexpr (p == 1) { T r; r.x = -z.y; r.y = z.x; return r; }
    else if constexpr (p == 2) { T r; r.x = -z.x; r.y = -z.y; return r; }
    else { T r; r.x = z.y; r.y = -z.x; return r; }
}

/// gamma_mu in the DeGrand-Rossi basis: row s has one entry, i^GPH at column GCOL.
constexpr int GCOL[4][4] = {{3, 2, 1, 0}, {3, 2, 1, 0}, {2, 3, 0, 1}, {2, 3, 0, 1}};
constexpr int GPH[4][4] = {{1, 1, 3, 3}, {2, 0, 0, 2}, {1, 3, 3, 1}, {0, 0, 0, 0}};

template <class R> struct V3 { C<R> c[3]; };
template <class R> struct Spinor { V3<R> s[4]; };
template <class R> struct Half { V3<R> h[2]; };
template <class R> struct Mat3 { C<R> m[3][3]; };

/// n / d for 0 <= n < 2^31 by a high multiply, an add and a shift
/// (Granlund and Montgomery's round-up method): the extents are known only at
/// run time, and an integer division the GPU has no instruction for costs
/// some twenty, which Skylight's kernels (extents compiled in) never pay.
struct Divisor {
    int d = 1;
    unsigned m = 1;  // ceil(2^(32 + s) / d) - 2^32
    int s = 0;       // ceil(log2 d)
    Divisor() = default;
    explicit Divisor(int divisor) : d(divisor) {
        while ((1ll << s) < d) s++;
        m = (unsigned)(((1ull << 32) * ((1ull << s) - (unsigned long long)d)) / (unsigned long long)d + 1);
    }
    HD int div(int n) const {
#ifdef __CUDA_ARCH__
        const unsigned hi = __umulhi((unsigned)n, m);
#else
        const unsigned hi = (unsigned)(((unsigned long long)(unsigned)n * m) >> 32);
#endif
        // hi <= n < 2^31, so the sum fits in 32 bits.
        return (int)((hi + (unsigned)n) >> s);
    }
};

/// Division by a compile-time constant (n >= 0): a shift for a power of two.
template <int D> struct Fixed {
    static constexpr int d = D;
    HD int div(int n) const { return (int)((unsigned)n / D); }
};

/// The last digit of i in base `by` (a Divisor or a Fixed); i keeps the rest.
template <class D> HD int digit(int& i, const D& by) {
    const int q = by.div(i), r = i - q * by.d;
    i = q;
    return r;
}

/// The lattice: extents and site count. Field offsets are int (32-bit
/// address arithmetic): the options keep 36 x sites below 2^31.
struct Geom {
    int l, t, n;
    /// The one-pass kernels' dispatch order, as Skylight's `block-y`,
    /// `block-z`, `block-t` and `tile-t` / `block-t` (`Order`); all 1 is
    /// storage order.
    int by = 1, bz = 1, bt = 1, group = 1;
    /// Division by l, by, bz, bt, group, l / by and l / bz (set by `geom`).
    Divisor dl, dby, dbz, dbt, dgroup, dyb, dzb;
};

/// The geometry of an l^3 x t lattice of n sites, dispatched in blocks of by
/// y rows, bz z rows and bt t planes, group blocks along t together (all 1:
/// storage order).
inline Geom geom(int l, int t, int n, int by = 1, int bz = 1, int bt = 1, int group = 1) {
    Geom g{l, t, n, by, bz, bt, group};
    g.dl = Divisor(l);
    g.dby = Divisor(by);
    g.dbz = Divisor(bz);
    g.dbt = Divisor(bt);
    g.dgroup = Divisor(group);
    g.dyb = Divisor(l / by);
    g.dzb = Divisor(l / bz);
    return g;
}

/// A read of read-only data: through the non-coherent (texture) cache on the GPU.
template <class T> HD T ld(const T* p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

template <class R> HD Spinor<R> load_spinor(const C<R>* f, int n, int site) {
    Spinor<R> s;
#pragma unroll
    for (int k = 0; k < 12; k++) s.s[k / 3].c[k % 3] = ld(f + k * n + site);
    return s;
}

template <class R> HD void store_spinor(C<R>* f, int n, int site, const Spinor<R>& s) {
#pragma unroll
    for (int k = 0; k < 12; k++) f[k * n + site] = s.s[k / 3].c[k % 3];
}

/// conj(a b - c d).
template <class T> HD T conj_cross(T a, T b, T c, T d) {
    T r;
    r.x = (a.x * b.x - a.y * b.y) - (c.x * d.x - c.y * d.y);
    r.y = -((a.x * b.y + a.y * b.x) - (c.x * d.y + c.y * d.x));
    return r;
}

/// f(std::integral_constant<int, RECON>) for the links' form `recon` (18:
/// whole, 12: two rows, the third rebuilt), so the site code is compiled
/// for each (the CUDA kernels and the host emulation alike).
template <class F> void with_recon(int recon, F f) {
    if (recon == 12) f(std::integral_constant<int, 12>{});
    else f(std::integral_constant<int, 18>{});
}

/// Link mu of a site: RECON 18 reads all 9 entries; 12 reads the first two
/// rows and rebuilds the third as conj(row 0 x row 1), as an SU(3) matrix
/// allows (the third row's storage is then never read).
template <int RECON, class R> HD Mat3<R> load_link(const C<R>* u, int n, int site, int mu) {
    static_assert(RECON == 18 || RECON == 12, "links are read whole (18) or as two rows (12)");
    Mat3<R> m;
    constexpr int read = RECON == 18 ? 9 : 6;
#pragma unroll
    for (int k = 0; k < read; k++) m.m[k / 3][k % 3] = ld(u + (mu * 9 + k) * n + site);
    if constexpr (RECON == 12) {
#pragma unroll
        for (int c = 0; c < 3; c++) {
            const int i = (c + 1) % 3, j = (c + 2) % 3;
            m.m[2][c] = conj_cross(m.m[0][i], m.m[1][j], m.m[0][j], m.m[1][i]);
        }
    }
    return m;
}

template <class R> HD V3<R> mat_vec(const Mat3<R>& m, const V3<R>& v) {
    V3<R> r;
#pragma unroll
    for (int i = 0; i < 3; i++) {
        C<R> a = mk<R>(0, 0);
#pragma unroll
        for (int j = 0; j < 3; j++) a = cfma(m.m[i][j], v.c[j], a);
        r.c[i] = a;
    }
    return r;
}

/// U^dagger v: component i is sum_j conj(U_ji) v_j.
template <class R> HD V3<R> adj_mat_vec(const Mat3<R>& m, const V3<R>& v) {
    V3<R> r;
#pragma unroll
    for (int i = 0; i < 3; i++) {
        C<R> a = mk<R>(0, 0);
#pragma unroll
        for (int j = 0; j < 3; j++) a = cjfma(m.m[j][i], v.c[j], a);
        r.c[i] = a;
    }
    return r;
}

/// The phase exponent of sigma * gamma_mu's entry in row s (sigma = -1 adds i^2).
template <int MU, int S, int SIGMA> constexpr int ph() { return GPH[MU][S] + (SIGMA < 0 ? 2 : 0); }

/// Upper two spins of (1 + SIGMA gamma_MU) p: p_s + SIGMA g_s p_col(s).
template <int MU, int SIGMA, class R> HD Half<R> project(const Spinor<R>& p) {
    // Constant locals: the table itself is host data, its entries are compile-time here.
    constexpr int c0 = GCOL[MU][0], c1 = GCOL[MU][1];
    Half<R> h;
#pragma unroll
    for (int c = 0; c < 3; c++) {
        h.h[0].c[c] = cadd(p.s[0].c[c], phase<ph<MU, 0, SIGMA>()>(p.s[c0].c[c]));
        h.h[1].c[c] = cadd(p.s[1].c[c], phase<ph<MU, 1, SIGMA>()>(p.s[c1].c[c]));
    }
    return h;
}

/// acc += the spinor (1 + SIGMA gamma_MU) psi rebuilt from its upper spins h:
/// SIGMA gamma_MU leaves it unchanged, so its lower spins are SIGMA g_s h_col(s).
template <int MU, int SIGMA, class R> HD void reconstruct(Spinor<R>& acc, const Half<R>& h) {
    constexpr int c2 = GCOL[MU][2], c3 = GCOL[MU][3];
#pragma unroll
    for (int c = 0; c < 3; c++) {
        acc.s[0].c[c] = cadd(acc.s[0].c[c], h.h[0].c[c]);
        acc.s[1].c[c] = cadd(acc.s[1].c[c], h.h[1].c[c]);
        acc.s[2].c[c] = cadd(acc.s[2].c[c], phase<ph<MU, 2, SIGMA>()>(h.h[c2].c[c]));
        acc.s[3].c[c] = cadd(acc.s[3].c[c], phase<ph<MU, 3, SIGMA>()>(h.h[c3].c[c]));
    }
}

/// The forward and backward hops along MU into acc (ISIGN: 1 for D, -1 for D^dagger).
template <int MU, int ISIGN, int RECON, class R>
HD void hop(Spinor<R>& acc, const C<R>* psi, const C<R>* u, const Geom& g, int site, int coord, int stride) {
    const int extent = MU == 3 ? g.t : g.l;
    const int up = coord + 1 == extent ? site - coord * stride : site + stride;
    const int dn = coord == 0 ? site + (extent - 1) * stride : site - stride;
    {
        const Half<R> h = project<MU, -ISIGN>(load_spinor<R>(psi, g.n, up));
        const Mat3<R> m = load_link<RECON, R>(u, g.n, site, MU);
        const Half<R> uh = {{mat_vec(m, h.h[0]), mat_vec(m, h.h[1])}};
        reconstruct<MU, -ISIGN>(acc, uh);
    }
    {
        const Half<R> h = project<MU, ISIGN>(load_spinor<R>(psi, g.n, dn));
        const Mat3<R> m = load_link<RECON, R>(u, g.n, dn, MU);
        const Half<R> uh = {{adj_mat_vec(m, h.h[0]), adj_mat_vec(m, h.h[1])}};
        reconstruct<MU, ISIGN>(acc, uh);
    }
}

/// (D psi)(site) (ISIGN 1) or (D^dagger psi)(site) (ISIGN -1).
template <int ISIGN, int RECON, class R> HD Spinor<R> dslash_site(const C<R>* psi, const C<R>* u, const Geom& g, int site) {
    Spinor<R> acc;
#pragma unroll
    for (int k = 0; k < 12; k++) acc.s[k / 3].c[k % 3] = mk<R>(0, 0);
    int rest = site;
    const int x = digit(rest, g.dl), y = digit(rest, g.dl), z = digit(rest, g.dl), t = rest;
    hop<0, ISIGN, RECON>(acc, psi, u, g, site, x, 1);
    hop<1, ISIGN, RECON>(acc, psi, u, g, site, y, g.l);
    hop<2, ISIGN, RECON>(acc, psi, u, g, site, z, g.l * g.l);
    hop<3, ISIGN, RECON>(acc, psi, u, g, site, t, g.l * g.l * g.l);
    return acc;
}

/// (M psi)(site) = psi(site) - kappa (D psi)(site), or M^dagger with ISIGN -1.
template <int ISIGN, int RECON, class R>
HD Spinor<R> m_site(const C<R>* psi, const C<R>* u, const Geom& g, int site, R kappa) {
    Spinor<R> d = dslash_site<ISIGN, RECON, R>(psi, u, g, site);
    const Spinor<R> p = load_spinor<R>(psi, g.n, site);
#pragma unroll
    for (int k = 0; k < 12; k++) {
        C<R>& z = d.s[k / 3].c[k % 3];
        const C<R> q = p.s[k / 3].c[k % 3];
        z.x = q.x - kappa * z.x;
        z.y = q.y - kappa * z.y;
    }
    return d;
}

/// Re <a, b> of two spinors, summed in f64.
template <class R> HD double spinor_dot(const Spinor<R>& a, const Spinor<R>& b) {
    double s = 0;
#pragma unroll
    for (int k = 0; k < 12; k++) {
        const C<R> p = a.s[k / 3].c[k % 3], q = b.s[k / 3].c[k % 3];
        s += (double)p.x * (double)q.x + (double)p.y * (double)q.y;
    }
    return s;
}

}  // namespace port
