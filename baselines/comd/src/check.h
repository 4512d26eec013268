// Checks as Skylight makes them (core/src/app.rs, Validation): a relative
// error against a floor, non-finite values (unwritten poison) failing, and
// two checks combined by keeping the worse error/tolerance ratio.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

struct Check {
    double max_error = 0;
    double tolerance = 0;
    bool passed = true;
    std::string detail;
};

// max |got - want| / max(|want|, floor) against `tol`.
inline Check compare(const std::vector<double>& got, const std::vector<double>& want, double tol,
                     double floor, const std::string& what) {
    Check c;
    c.tolerance = tol;
    if (got.size() != want.size()) {
        c.passed = false;
        c.max_error = INFINITY;
        c.detail = what + ": sizes differ";
        return c;
    }
    size_t unwritten = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i])) {
            ++unwritten;
            continue;
        }
        const double e = std::fabs(got[i] - want[i]) / std::fmax(std::fabs(want[i]), floor);
        if (e > c.max_error) c.max_error = e;
    }
    char buf[256];
    if (unwritten > 0) {
        c.max_error = INFINITY;
        c.passed = false;
        std::snprintf(buf, sizeof buf, "%s: %zu of %zu elements unwritten or not finite", what.c_str(),
                      unwritten, got.size());
    } else {
        c.passed = c.max_error <= tol;
        std::snprintf(buf, sizeof buf, "%s: max relative error %.3e (tolerance %.1e)", what.c_str(),
                      c.max_error, tol);
    }
    c.detail = buf;
    return c;
}

// A single figure against a bound.
inline Check bound(double error, double tol, const std::string& detail) {
    return Check{error, tol, error <= tol, detail};
}

// Both must pass; the larger error ratio is kept.
inline Check both(const Check& a, const Check& b) {
    auto ratio = [](const Check& c) { return c.tolerance > 0 ? c.max_error / c.tolerance : INFINITY; };
    const Check& worse = ratio(b) > ratio(a) ? b : a;
    return Check{worse.max_error, worse.tolerance, a.passed && b.passed, a.detail + "; " + b.detail};
}

// One `skylight-native` line (core/src/native/line.rs); the detail may not
// hold double quotes. Each sample is the mean of `runs` back-to-back runs.
inline void print_line(const char* kernel, const char* precision, const std::string& config,
                       size_t atoms, const std::vector<double>& samples, int runs, const Check& c) {
    std::string detail = c.detail;
    for (auto& ch : detail)
        if (ch == '"') ch = '\'';
    std::printf("skylight-native app=comd kernel=%s precision=%s config=%s match.atoms=%zu samples_s=",
                kernel, precision, config.c_str(), atoms);
    for (size_t i = 0; i < samples.size(); ++i) std::printf("%s%.6e", i ? "," : "", samples[i]);
    if (runs != 1) std::printf(" runs=%d", runs);
    std::printf(" max_error=%.6e tolerance=%.6e passed=%d detail=\"%s\"\n", c.max_error, c.tolerance,
                c.passed ? 1 : 0, detail.c_str());
    std::fflush(stdout);
}
