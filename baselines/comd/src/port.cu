// The problem of one size and precision, and the checks of its results.
#include "port.h"

#include <cstdio>

Problem make_problem(const md::System& s0, bool f32) {
    Problem pr;
    pr.start = s0;
    // The reference starts exactly where the device does.
    if (f32) md::round_to_f32(pr.start);
    pr.pairs = md::compute_forces(pr.start);
    pr.ref_force = pr.start;
    if (f32) md::round_to_f32(pr.start);
    pr.ref_step = pr.start;
    md::step(pr.ref_step);
    return pr;
}

Check check_force(const Problem& pr, bool f32, const std::vector<double>& frc,
                  const std::vector<double>& epot) {
    const md::System& want = pr.ref_force;
    Check c = both(compare(frc, want.frc, force_tolerance(want, f32), 0.05, "forces vs the CPU f64 reference"),
                   compare(epot, want.epot, tolerance(f32), 0.01, "atom energies"));
    double pe = 0;
    for (double e : epot) pe += e;
    const double n = double(want.atoms());
    char buf[256];
    std::snprintf(buf, sizeof buf, "; PE %.9f eV/atom; %.1f candidates and %.2f pairs inside the cutoff per atom",
                  pe / n, double(pr.pairs.candidates) / n, double(pr.pairs.inside) / n);
    c.detail += buf;
    return c;
}

Check check_step(const Problem& pr, bool f32, std::vector<double> pos, const std::vector<double>& vel,
                 const std::vector<double>& epot) {
    const md::System& want = pr.ref_step;
    // An atom at a face may wrap on the other side than the reference's.
    for (size_t k = 0; k < pos.size(); ++k) {
        const double l = want.box[k % 3];
        if (pos[k] - want.pos[k] > 0.5 * l) pos[k] -= l;
        if (want.pos[k] - pos[k] > 0.5 * l) pos[k] += l;
    }
    const double tol = tolerance(f32);
    Check c = both(compare(pos, want.pos, tol, 1.0, "positions after the step vs the CPU f64 step"),
                   compare(vel, want.vel, 10.0 * tol, 1e-3, "velocities"));
    double pe0, ke0, pe_ref, ke_ref;
    md::energies(pr.ref_force, pe0, ke0);
    md::energies(want, pe_ref, ke_ref);
    const double n = double(want.atoms());
    double pe1 = 0, ke1 = 0;
    for (double e : epot) pe1 += e;
    for (double v : vel) ke1 += v * v;
    pe1 /= n;
    ke1 *= 0.5 * md::mass() / n;
    // ref_force holds the start's velocities (rounded where f32).
    const double e0 = pe0 + ke0, e1 = pe1 + ke1;
    const double drift = std::isfinite(e1) ? std::fabs(e1 / e0 - 1.0) : INFINITY;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "total energy %.9f -> %.9f eV/atom over the step (CPU f64 step %.9f), drift %.2e",
                  e0, e1, pe_ref + ke_ref, drift);
    return both(c, bound(drift, drift_tolerance(f32), buf));
}

Check check_comd_pe(double pe_per_atom, bool f32) {
    const double err = std::fabs(pe_per_atom - md::COMD_PE0) / std::fabs(md::COMD_PE0);
    char buf[160];
    std::snprintf(buf, sizeof buf, "step-0 PE %.12f eV/atom vs CoMD's %.12f", pe_per_atom, md::COMD_PE0);
    return bound(std::isfinite(err) ? err : INFINITY, f32 ? 1e-5 : 1e-10, buf);
}
