//! Complex numbers in f64 for the SNAP reference.

use std::ops::{Add, Mul, Sub};

/// A complex number in f64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct C {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl C {
    /// `re + i im`.
    pub const fn new(re: f64, im: f64) -> C {
        C { re, im }
    }
    /// Complex conjugate.
    pub fn conj(self) -> C {
        C::new(self.re, -self.im)
    }
    /// `self * s` for a real `s`.
    pub fn scale(self, s: f64) -> C {
        C::new(self.re * s, self.im * s)
    }
}

impl Add for C {
    type Output = C;
    fn add(self, o: C) -> C {
        C::new(self.re + o.re, self.im + o.im)
    }
}

impl Sub for C {
    type Output = C;
    fn sub(self, o: C) -> C {
        C::new(self.re - o.re, self.im - o.im)
    }
}

impl Mul for C {
    type Output = C;
    fn mul(self, o: C) -> C {
        C::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}
