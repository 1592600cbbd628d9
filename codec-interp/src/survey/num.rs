//! A field's value as the survey compares it: its bits, its width and how
//! the schema reads them.

use crate::Value;

/// How the bits of a [`Num`] are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Unsigned,
    Signed,
    Float,
    Bool,
}

/// A number of one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Num {
    /// The stored bits, zero-extended.
    pub bits: u64,
    /// Width in bits.
    pub width: u8,
    pub class: Class,
}

impl Num {
    /// The number a decoded value holds; `None` for anything else.
    pub fn of(v: &Value) -> Option<Num> {
        let (bits, width, class) = match *v {
            Value::Bool(b) => (u64::from(b), 8, Class::Bool),
            Value::U8(n) => (u64::from(n), 8, Class::Unsigned),
            Value::U16(n) => (u64::from(n), 16, Class::Unsigned),
            Value::U32(n) => (u64::from(n), 32, Class::Unsigned),
            Value::U64(n) => (n, 64, Class::Unsigned),
            Value::I8(n) => (u64::from(n as u8), 8, Class::Signed),
            Value::I16(n) => (u64::from(n as u16), 16, Class::Signed),
            Value::I32(n) => (u64::from(n as u32), 32, Class::Signed),
            Value::I64(n) => (n as u64, 64, Class::Signed),
            Value::F32(x) => (u64::from(x.to_bits()), 32, Class::Float),
            Value::F64(x) => (x.to_bits(), 64, Class::Float),
            _ => return None,
        };
        Some(Num { bits, width, class })
    }

    /// An unsigned stored value `size` bytes wide (a derived count, an offset).
    pub fn unsigned(raw: u64, size: u64) -> Num {
        Num {
            bits: raw,
            width: (size.clamp(1, 8) * 8) as u8,
            class: Class::Unsigned,
        }
    }

    /// The value as an integer; `None` for a float.
    pub fn int(self) -> Option<i128> {
        match self.class {
            Class::Unsigned | Class::Bool => Some(i128::from(self.bits)),
            Class::Signed => {
                let shift = 64 - u32::from(self.width);
                Some(i128::from(((self.bits << shift) as i64) >> shift))
            }
            Class::Float => None,
        }
    }

    /// Is this the "none" value of its width: all ones, which is -1 for a
    /// signed field?
    pub fn is_sentinel(self) -> bool {
        self.class != Class::Float && self.class != Class::Bool && self.bits == self.mask()
    }

    /// The bits of the field's width.
    pub fn mask(self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1 << self.width) - 1
        }
    }

    /// The bits read as a float of the field's width, when it is 32 or 64.
    pub fn as_float(self) -> Option<f64> {
        match self.width {
            32 => Some(f64::from(f32::from_bits(self.bits as u32))),
            64 => Some(f64::from_bits(self.bits)),
            _ => None,
        }
    }

    /// Does an integer field hold a plausible float here: a normal number of
    /// a magnitude that game data has (1e-6 to 1e9)? Small integers read as
    /// floats are subnormal, so they never pass.
    pub fn plausible_float(self) -> bool {
        let normal = match self.width {
            32 => f32::from_bits(self.bits as u32).is_normal(),
            64 => f64::from_bits(self.bits).is_normal(),
            _ => false,
        };
        normal
            && self
                .as_float()
                .is_some_and(|x| (1e-6..=1e9).contains(&x.abs()))
    }

    /// The bits read as a float of the field's width, in the shortest
    /// form that reads back to them (`2.2`, not `2.200000047683716`).
    pub fn float_text(self) -> String {
        match self.width {
            32 => format!("{}", f32::from_bits(self.bits as u32)),
            64 => format!("{}", f64::from_bits(self.bits)),
            _ => format!("0x{:x}", self.bits),
        }
    }

    /// The value as a report shows it: `12`, `300 (0x12c)`, `-1`, `1.5`,
    /// `true`.
    pub fn show(self) -> String {
        match self.class {
            Class::Bool => (self.bits != 0).to_string(),
            Class::Float => self.float_text(),
            Class::Unsigned if self.bits >= 10 => format!("{} (0x{:x})", self.bits, self.bits),
            Class::Unsigned => self.bits.to_string(),
            Class::Signed => self.int().unwrap_or_default().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_values_are_sign_extended_and_minus_one_is_the_sentinel() {
        let n = Num::of(&Value::I16(-1)).unwrap();
        assert_eq!(n.int(), Some(-1));
        assert!(n.is_sentinel());
        let n = Num::of(&Value::U16(0xffff)).unwrap();
        assert_eq!(n.int(), Some(0xffff));
        assert!(n.is_sentinel());
        assert!(!Num::of(&Value::U16(0xfffe)).unwrap().is_sentinel());
    }

    #[test]
    fn small_integers_are_not_plausible_floats() {
        assert!(!Num::of(&Value::U32(12)).unwrap().plausible_float());
        assert!(Num::of(&Value::U32(1.5f32.to_bits()))
            .unwrap()
            .plausible_float());
        assert!(!Num::of(&Value::U32(f32::NAN.to_bits()))
            .unwrap()
            .plausible_float());
    }
}
