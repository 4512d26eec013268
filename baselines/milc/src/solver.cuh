// Conjugate gradient on M^dagger M x = M^dagger b, as Skylight's milc `cg`
// runs it: every scalar stays on the device (f64 slots below), so a solve
// is a fixed sequence of launches with no read-back; once the residual
// reaches the tolerance the solve freezes (alpha = beta = 0), so a fixed
// number of iterations behaves as "until converged" and every solve does
// the same work as Skylight's recorded one. The sequence is written once
// (cg_solve) over a backend: the CUDA one, or the host emulation that
// --cpu-only tests.
#pragma once

#include "wilson.cuh"

namespace port {

/// Slots of the scalar array.
enum Slot { S_TOL2, S_RR, S_PAP, S_RR_NEW, S_ALPHA, S_BETA, S_RR0, S_ITERS, S_CONVERGED, S_COUNT };

/// Which scalar update follows a reduction.
enum Stage { START, ALPHA, BETA };

/// What an application of M also reduces, per site: nothing, <w, M psi>, or |M psi|^2.
enum DotMode { NO_DOT, DOT_W, NORM };

/// The scalar update after a reduction whose total is `sum` (one thread runs it).
HD void cg_scalar_step(double* s, Stage stage, double sum) {
    const bool converged = s[S_CONVERGED] > 0.5;
    switch (stage) {
    case START:  // |r0|^2; reset the counters
        s[S_RR] = sum;
        s[S_RR0] = sum;
        s[S_ITERS] = 0;
        s[S_CONVERGED] = 0;
        break;
    case ALPHA:  // alpha = <r, r> / <p, A p>
        s[S_PAP] = sum;
        s[S_ALPHA] = converged ? 0.0 : s[S_RR] / sum;
        break;
    case BETA:  // beta = <r', r'> / <r, r>; stop once |r'|^2 <= tol^2 |r0|^2
        s[S_RR_NEW] = sum;
        if (converged) {
            s[S_BETA] = 0;
        } else {
            s[S_ITERS] += 1;
            if (sum <= s[S_TOL2] * s[S_RR0] || !(sum > 0)) {
                s[S_CONVERGED] = 1;
                s[S_BETA] = 0;
            } else {
                s[S_BETA] = sum / s[S_RR];
            }
        }
        s[S_RR] = sum;
        break;
    }
}

/// The solve's fields (device or host pointers, complex-SoA spinors).
template <class R> struct CgFields {
    const C<R>* u;
    const C<R>* b;
    C<R>* x;
    C<R>* r;
    C<R>* p;
    C<R>* mp;
    C<R>* ap;
};

/// x = (M^dagger M)^-1 M^dagger b from x = 0, `iterations` iterations (frozen
/// once converged). Backend B provides apply_m, finish, copy, zero, update
/// (x += alpha p, r -= alpha ap, reducing |r|^2) and xpay (p = r + beta p).
template <class R, class B> void cg_solve(B& be, const CgFields<R>& f, int iterations) {
    be.apply_m(f.r, f.b, -1, NORM, nullptr);  // r = M^dagger b, and |r|^2
    be.finish(START);
    be.copy(f.p, f.r);
    be.zero(f.x);
    for (int k = 0; k < iterations; k++) {
        be.apply_m(f.mp, f.p, 1, NO_DOT, nullptr);  // M p
        be.apply_m(f.ap, f.mp, -1, DOT_W, f.p);     // A p = M^dagger M p, and <p, A p>
        be.finish(ALPHA);
        be.update(f);  // x += alpha p, r -= alpha A p, and |r|^2
        be.finish(BETA);
        be.xpay(f);  // p = r + beta p
    }
}

/// x += alpha p, r -= alpha ap at one site; returns |r|^2 there.
template <class R> HD double update_site(const CgFields<R>& f, int n, int site, R alpha) {
    double rr = 0;
#pragma unroll
    for (int k = 0; k < 12; k++) {
        const int i = k * n + site;
        const C<R> p = f.p[i], ap = f.ap[i];
        C<R> x = f.x[i], r = f.r[i];
        x.x += alpha * p.x;
        x.y += alpha * p.y;
        r.x -= alpha * ap.x;
        r.y -= alpha * ap.y;
        f.x[i] = x;
        f.r[i] = r;
        rr += (double)r.x * r.x + (double)r.y * r.y;
    }
    return rr;
}

/// p = r + beta p at one site.
template <class R> HD void xpay_site(const CgFields<R>& f, int n, int site, R beta) {
#pragma unroll
    for (int k = 0; k < 12; k++) {
        const int i = k * n + site;
        const C<R> r = f.r[i];
        C<R> p = f.p[i];
        p.x = r.x + beta * p.x;
        p.y = r.y + beta * p.y;
        f.p[i] = p;
    }
}

}  // namespace port
