//! Numbers in the text form: how floats are printed (oead's `%.9g`) and how
//! plain scalars are recognised (oead's rules, see the module docs of
//! [`super`]).

use std::fmt::Write as _;

/// The quiet NaN that `.nan` stands for.
pub const CANONICAL_NAN: u32 = 0x7FC0_0000;

/// How an f32 is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatText {
    /// A plain scalar (a decimal number, `.inf`, `-.inf` or `.nan`).
    Plain,
    /// A NaN other than [`CANONICAL_NAN`]: `!f32 0xXXXXXXXX`, its bits.
    Bits(u32),
}

/// A number's text, formed in a fixed-size buffer: the YAML writer lends it
/// the 32 bytes past the end of its text and keeps [`NumText::len`] of them
/// (no copy, no call); elsewhere an array on the stack.
#[derive(Debug)]
pub struct NumText<'a> {
    buf: &'a mut [u8; CAPACITY],
    len: usize,
}

/// Room for the longest number text (`i64::MIN` and `u64::MAX` are 20
/// bytes).
pub const CAPACITY: usize = 32;

/// `00` to `99`: two digits per division.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

impl<'a> NumText<'a> {
    /// An empty text over `buf`.
    pub fn new(buf: &'a mut [u8; CAPACITY]) -> Self {
        NumText { buf, len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text (ASCII).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The text as a `str` (it is ASCII).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// Appends `bytes` (cut at the capacity). Inlined, a constant's copy is
    /// a few stores.
    #[inline(always)]
    fn extend(&mut self, bytes: &[u8]) {
        let end = (self.len + bytes.len()).min(self.buf.len());
        let n = end - self.len;
        self.buf[self.len..end].copy_from_slice(&bytes[..n]);
        self.len = end;
    }

    /// Appends the first `count` bytes of `bytes` (little-endian): one
    /// 16-byte store where the buffer has room past the text, which the
    /// next writes and the final length cut back.
    #[inline(always)]
    fn put_u128(&mut self, bytes: u128, count: usize) {
        let count = count.min(16);
        match self.buf.get_mut(self.len..self.len + 16) {
            Some(dst) => {
                dst.copy_from_slice(&bytes.to_le_bytes());
                self.len += count;
            }
            None => bytes.to_le_bytes()[..count]
                .iter()
                .for_each(|&b| self.push(b)),
        }
    }

    /// A decimal integer.
    pub fn int(&mut self, v: i64) {
        if v < 0 {
            self.push(b'-');
        }
        self.uint(v.unsigned_abs());
    }

    /// A decimal unsigned integer, written in place from its last digit.
    pub fn uint(&mut self, mut n: u64) {
        let width = n.checked_ilog10().map_or(1, |d| d as usize + 1);
        let end = self.len + width;
        if end > self.buf.len() {
            return;
        }
        let mut pos = end;
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            self.buf[pos - 2..pos].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
            pos -= 2;
        }
        if n >= 10 {
            let pair = n as usize * 2;
            self.buf[pos - 2..pos].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        } else {
            self.buf[pos - 1] = b'0' + n as u8;
        }
        self.len = end;
    }

    /// `0x` and `v` as 8 lowercase hex digits (`printf("0x%08x")`).
    pub fn hex32(&mut self, v: u32) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut buf = *b"0x00000000";
        for (i, d) in buf[2..].iter_mut().enumerate() {
            *d = HEX[((v >> (28 - 4 * i)) & 0xF) as usize];
        }
        self.extend(&buf);
    }

    /// `v` the way oead prints it (`%.9g`, plus `.0` when the result has
    /// neither a `.` nor an exponent), which reads back to the same bits.
    /// Infinities are `.inf`/`-.inf` and the canonical NaN `.nan` (oead
    /// prints `inf.0`/`nan.0`, which it cannot read back); other NaNs are
    /// left to the caller ([`FloatText::Bits`]), and nothing is written.
    pub fn f32(&mut self, v: f32) -> FloatText {
        if v.is_nan() {
            let bits = v.to_bits();
            if bits == CANONICAL_NAN {
                self.extend(b".nan");
                return FloatText::Plain;
            }
            return FloatText::Bits(bits);
        }
        if v.is_infinite() {
            self.extend(if v > 0.0 { b".inf" } else { b"-.inf" });
            return FloatText::Plain;
        }
        // Integers below 10^9 print as themselves (9 significant digits
        // cover them); this covers 0.0, 1.0 and most other values in real
        // files.
        if v.abs() < 1e9 && (v as i32) as f32 == v {
            if v.is_sign_negative() {
                self.push(b'-');
            }
            self.uint(u64::from(v.abs() as u32));
            self.extend(b".0");
            return FloatText::Plain;
        }
        let (neg, digits, exp) = g9_digits(v).unwrap_or_else(|| g9_digits_by_fmt(f64::from(v)));
        self.g9(neg, ascii9(digits), exp);
        FloatText::Plain
    }

    /// printf's `%.9g` of a finite, non-integer-below-10^9 value given as
    /// its sign, 9 significant digits and decimal exponent, plus `.0` when
    /// needed.
    fn g9(&mut self, neg: bool, digits: u128, exp: i32) {
        // Significant digits without trailing zeros (the first is not 0).
        let zeros = ((digits ^ ASCII_ZEROS_9).leading_zeros() as usize - 56) / 8;
        let len = 9 - zeros;
        if neg {
            self.push(b'-');
        }
        if !(-4..9).contains(&exp) {
            self.push(digits as u8);
            if len > 1 {
                self.push(b'.');
                self.put_u128(digits >> 8, len - 1);
            }
            self.push(b'e');
            self.push(if exp < 0 { b'-' } else { b'+' });
            let e = exp.unsigned_abs();
            if e < 10 {
                self.push(b'0');
            }
            self.uint(u64::from(e));
        } else if exp < 0 {
            self.extend(b"0.");
            for _ in 0..(-exp - 1) {
                self.push(b'0');
            }
            self.put_u128(digits, len);
        } else {
            let int_len = exp as usize + 1;
            if len <= int_len {
                // The zeros after the significant digits are in `digits`.
                self.put_u128(digits, int_len);
                self.extend(b".0");
            } else {
                // The point goes in between, in the register.
                let shift = 8 * int_len as u32;
                let low = digits & ((1u128 << shift) - 1);
                let high = digits >> shift;
                self.put_u128(
                    low | (u128::from(b'.') << shift) | (high << (shift + 8)),
                    len + 1,
                );
            }
        }
    }
}

/// Appends `v` as [`NumText::f32`] writes it.
pub fn push_f32(out: &mut String, v: f32) -> FloatText {
    let mut buf = [0; CAPACITY];
    let mut t = NumText::new(&mut buf);
    let r = t.f32(v);
    out.push_str(t.as_str());
    r
}

/// The 9 significant digits of `%.9g` (exact decimal rounding, ties to
/// even, like glibc and absl) and the decimal exponent, for a finite f32,
/// by integer arithmetic: the value is `m * 2^e` exactly, and the digits
/// are `m * 2^e * 10^k` rounded, for the `k` that leaves 9 of them. `None`
/// where that product does not fit in 128 bits (values below about 1e-23
/// and zero), which [`g9_digits_by_fmt`] covers.
fn g9_digits(v: f32) -> Option<(bool, u32, i32)> {
    let bits = v.to_bits();
    let neg = bits >> 31 == 1;
    let biased = ((bits >> 23) & 0xFF) as i32;
    let frac = u128::from(bits & 0x7F_FFFF);
    let (m, e) = match biased {
        0xFF => return None,
        0 => (frac, -149),
        b => (frac | 0x80_0000, b - 150),
    };
    if m == 0 {
        return None;
    }
    // floor(log10(v)) is floor(log10(2) * floor(log2(v))) or one more
    // (78913 / 2^18 is log10(2) to 6 digits); the loop below corrects it.
    let log2 = e + (127 - m.leading_zeros() as i32);
    let mut exp = (log2 * 78913) >> 18;
    for _ in 0..4 {
        let n = match scaled_round_u64(m as u64, e, 8 - exp) {
            Some(n) => u128::from(n),
            None => scaled_round(m, e, 8 - exp)?,
        };
        if n >= 1_000_000_000 {
            exp += 1;
        } else if n < 100_000_000 {
            exp -= 1;
        } else {
            return Some((neg, n as u32, exp));
        }
    }
    None
}

/// The powers of ten that fit in a `u128`.
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// [`scaled_round`] in 64 bits, for the common case: a fraction (`e < 0`)
/// scaled by at most 10^12, which keeps `m * 10^k` (`m` < 2^24) below 2^64.
/// `None` elsewhere.
#[inline]
fn scaled_round_u64(m: u64, e: i32, k: i32) -> Option<u64> {
    if !(0..=12).contains(&k) || !(-63..0).contains(&e) {
        return None;
    }
    // 10^k fits in 64 bits for k <= 12.
    let num = m * POW10[k as usize] as u64;
    let s = (-e) as u32;
    let q = num >> s;
    let r = num & ((1u64 << s) - 1);
    let half = 1u64 << (s - 1);
    Some(if r > half || (r == half && q & 1 == 1) {
        q + 1
    } else {
        q
    })
}

/// `m * 2^e * 10^k`, rounded to an integer (ties to even), when it fits.
fn scaled_round(m: u128, e: i32, k: i32) -> Option<u128> {
    let round = |q: u128, r: u128, half: u128| {
        if r > half || (r == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    match (k >= 0, e >= 0) {
        // An integer times a power of ten: exact.
        (true, true) => {
            let v = (m.leading_zeros() >= e as u32).then(|| m << e)?;
            v.checked_mul(*POW10.get(k as usize)?)
        }
        (true, false) => {
            let num = m.checked_mul(*POW10.get(k as usize)?)?;
            let s = (-e) as u32;
            if s >= 127 {
                return None;
            }
            let q = num >> s;
            let r = num & ((1u128 << s) - 1);
            Some(round(q, r << 1, 1u128 << s))
        }
        (false, _) => {
            // v is at least 1e9 here, so an integer: m << e.
            if e < 0 {
                return None;
            }
            let v = (m.leading_zeros() >= e as u32).then(|| m << e)?;
            let p = *POW10.get((-k) as usize)?;
            let (q, r) = (v / p, v % p);
            Some(round(q, r * 2, p))
        }
    }
}

/// The same digits through core's exact formatting (`{:.8e}`): the path
/// for the values [`g9_digits`] leaves.
fn g9_digits_by_fmt(v: f64) -> (bool, u32, i32) {
    let mut buf = StackStr::<40>::new();
    let _ = write!(buf, "{v:.8e}");
    let s = buf.as_str();
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .take(9)
        .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    (neg, digits, exp)
}

/// `'0'` in each of the 9 low bytes.
const ASCII_ZEROS_9: u128 = 0x30_3030_3030_3030_3030;

/// The 9 digits of `n` (10^8 ≤ `n` < 10^9) as ASCII, the first in the
/// lowest byte: computed in registers, 4 and 2 and 1 digits per lane, so
/// that writing them is one store (digits written a byte or two at a time
/// and then copied wider made each copy wait on the stores before it).
fn ascii9(n: u32) -> u128 {
    let (first, rest) = (n / 100_000_000, n % 100_000_000);
    // Two 4-digit lanes, then four 2-digit lanes, then eight digits.
    let mut x = u64::from(rest / 10_000) | (u64::from(rest % 10_000) << 32);
    let hundreds = ((x * 5243) >> 19) & 0x0000_007F_0000_007F;
    x = hundreds | ((x - hundreds * 100) << 16);
    let tens = ((x * 103) >> 10) & 0x000F_000F_000F_000F;
    x = tens | ((x - tens * 10) << 8);
    (u128::from(first) | (u128::from(x) << 8)) | ASCII_ZEROS_9
}

/// A fixed-capacity string for formatting without allocating.
struct StackStr<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> StackStr<N> {
    fn new() -> Self {
        StackStr {
            buf: [0; N],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

impl<const N: usize> std::fmt::Write for StackStr<N> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > N {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// What an untagged plain scalar stands for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plain {
    Bool(bool),
    /// An integer; out-of-range magnitudes saturate far beyond 64 bits so
    /// that range checks fail.
    Int(i128),
    Float(f64),
    Null,
    /// Anything else is a string.
    Str,
}

/// Resolves an untagged plain scalar the way oead does: `true`/`false`; an
/// integer in C's `strtoull` base-0 syntax (decimal, `0x` hex, leading-`0`
/// octal, optional sign); a float (digits with a `.` and/or an exponent,
/// or `.inf`, `-.inf`, `.nan` in YAML's spellings); `null`; else a string.
/// (oead needs a `.` in a float; an exponent alone is accepted here so that
/// `1e-05`, which oead itself prints, reads back as a float.)
pub fn resolve_plain(s: &str) -> Plain {
    match s {
        "true" => return Plain::Bool(true),
        "false" => return Plain::Bool(false),
        "null" => return Plain::Null,
        _ => {}
    }
    if let Some(n) = parse_int(s) {
        return Plain::Int(n);
    }
    if let Some(f) = parse_float(s) {
        return Plain::Float(f);
    }
    Plain::Str
}

/// Whether a string must be quoted to read back as a string.
pub fn needs_quotes(s: &str) -> bool {
    !matches!(resolve_plain(s), Plain::Str)
}

/// An integer in `strtoull` base-0 syntax, without the leading whitespace.
pub fn parse_int(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let (radix, digits) = if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        (16, &b[2..])
    } else if b.len() > 1 && b[0] == b'0' {
        (8, &b[1..])
    } else {
        (10, b)
    };
    if digits.is_empty() {
        return None;
    }
    const LIMIT: i128 = 1 << 100;
    let mut value: i128 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => i128::from(c - b'0'),
            b'a'..=b'f' => i128::from(c - b'a' + 10),
            b'A'..=b'F' => i128::from(c - b'A' + 10),
            _ => return None,
        };
        if d >= radix {
            return None;
        }
        value = (value * radix + d).min(LIMIT);
    }
    Some(if neg { -value } else { value })
}

/// Whether `s` spells an infinity (`.inf`, `-.Inf`, ...): a number that
/// only overflows to one (`1e400`) is out of range, not infinite.
pub fn is_inf_literal(s: &str) -> bool {
    let t = s.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    matches!(t, ".inf" | ".Inf" | ".INF")
}

/// A float: `[+-]? digits? (. digits?)? ([eE] [+-]? digits)?` with at least
/// one digit and a `.` or an exponent; or YAML's `.inf`, `+.inf`, `-.inf`,
/// `.nan` (lower, title or upper case).
pub fn parse_float(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let mut mantissa_digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        mantissa_digits += 1;
    }
    let mut marked = false;
    if i < b.len() && b[i] == b'.' {
        marked = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            mantissa_digits += 1;
        }
    }
    if mantissa_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] | 0x20) == b'e' {
        marked = true;
        i += 1;
        if i < b.len() && matches!(b[i], b'-' | b'+') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != b.len() || !marked {
        return None;
    }
    s.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer path gives core's exact digits for `bits`, or leaves it.
    fn same_digits(bits: u32) -> Result<bool, String> {
        let v = f32::from_bits(bits);
        if !v.is_finite() {
            return Ok(false);
        }
        match g9_digits(v) {
            None => Ok(false),
            Some(fast) => {
                let slow = g9_digits_by_fmt(f64::from(v));
                if fast == slow {
                    Ok(true)
                } else {
                    Err(format!("{v:e} ({bits:#010x}): {fast:?} != {slow:?}"))
                }
            }
        }
    }

    /// The integer path agrees with core's exact formatting: on every
    /// power of two and its neighbours, on values with many 9s (where the
    /// rounding carries) and on a spread of 2 million bit patterns. The
    /// exhaustive run over all 2^32 is `cargo test --release -p formats
    /// --lib every_f32 -- --ignored`.
    #[test]
    fn integer_digits_equal_core_formatting() {
        let mut covered = 0;
        let mut check = |bits: u32| match same_digits(bits) {
            Ok(c) => covered += usize::from(c),
            Err(e) => panic!("{e}"),
        };
        for exp in 0..255u32 {
            for frac in [0, 1, 2, 0x3F_FFFF, 0x40_0000, 0x7F_FFFE, 0x7F_FFFF] {
                check((exp << 23) | frac);
            }
        }
        for x in [
            0.999_999_999_5f64,
            9.999_999_995,
            99_999_999.5,
            1e-5,
            0.1,
            0.3,
            2.5e-7,
        ] {
            let b = (x as f32).to_bits();
            for d in 0..64 {
                check(b.wrapping_add(d));
                check(b.wrapping_sub(d));
            }
        }
        let mut bits = 0x1234_5678u32;
        for _ in 0..2_000_000 {
            // xorshift32: a spread of bit patterns, the same every run.
            bits ^= bits << 13;
            bits ^= bits >> 17;
            bits ^= bits << 5;
            check(bits);
        }
        assert!(covered > 1_500_000, "the integer path took {covered}");
    }

    /// The digits computed in lanes are the decimal digits, on the
    /// boundaries and a spread in between.
    #[test]
    fn nine_digits_in_a_register() {
        let mut n = 100_000_000u32;
        let check = |n: u32| {
            let text = ascii9(n).to_le_bytes();
            assert_eq!(&text[..9], n.to_string().as_bytes(), "{n}");
            assert!(text[9..].iter().all(|&b| b == 0), "{n}");
        };
        for edge in [
            100_000_000,
            100_000_001,
            109_999_999,
            123_456_789,
            999_999_999,
            900_000_000,
        ] {
            check(edge);
        }
        while n < 1_000_000_000 {
            check(n);
            n += 7_919;
        }
    }

    #[test]
    #[ignore = "exhaustive: about ten minutes in release"]
    fn every_f32_has_the_same_digits_both_ways() {
        let bad: Vec<String> = (0..=u32::MAX)
            .filter_map(|b| same_digits(b).err())
            .take(10)
            .collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    fn g9(v: f32) -> String {
        let mut s = String::new();
        assert_eq!(push_f32(&mut s, v), FloatText::Plain);
        s
    }

    #[test]
    // The literals are written as oead prints them.
    #[allow(clippy::excessive_precision)]
    fn floats_print_like_oead() {
        let cases: &[(f32, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.0, "-1.0"),
            (0.8, "0.800000012"),
            (500.12, "500.119995"),
            (1.2, "1.20000005"),
            (5.1, "5.0999999"),
            (3.5, "3.5"),
            (-0.01565, "-0.0156500004"),
            (0.00124100002, "0.00124100002"),
            (1e-5, "9.99999975e-06"),
            (1e10, "1e+10"),
            (123456789.0, "123456792.0"),
            (1e9, "1e+09"),
            (2.5e9, "2.5e+09"),
            (1.001953125, "1.00195312"),
            (0.0001, "9.99999975e-05"),
            (0.5, "0.5"),
            (100.5, "100.5"),
            (f32::MAX, "3.40282347e+38"),
            (f32::MIN_POSITIVE, "1.17549435e-38"),
            (1e-45, "1.40129846e-45"),
            (f32::INFINITY, ".inf"),
            (f32::NEG_INFINITY, "-.inf"),
            (f32::NAN, ".nan"),
        ];
        for &(v, want) in cases {
            assert_eq!(g9(v), want, "{v:e}");
        }
        let mut s = String::new();
        assert_eq!(
            push_f32(&mut s, f32::from_bits(0xFFC0_0000)),
            FloatText::Bits(0xFFC0_0000)
        );
    }

    #[test]
    fn every_printed_float_reads_back() {
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = f32::from_bits(x);
            let mut s = String::new();
            if push_f32(&mut s, v) != FloatText::Plain {
                continue;
            }
            let back = match resolve_plain(&s) {
                Plain::Float(f) => f as f32,
                other => panic!("{s} resolved as {other:?}"),
            };
            if v.is_nan() {
                assert!(back.is_nan());
            } else {
                assert_eq!(back.to_bits(), v.to_bits(), "{s}");
            }
        }
    }

    #[test]
    fn plain_scalars_resolve_like_oead() {
        assert_eq!(resolve_plain("true"), Plain::Bool(true));
        assert_eq!(resolve_plain("True"), Plain::Str);
        assert_eq!(resolve_plain("12"), Plain::Int(12));
        assert_eq!(resolve_plain("-12"), Plain::Int(-12));
        assert_eq!(resolve_plain("0x309"), Plain::Int(0x309));
        assert_eq!(resolve_plain("0xffffffff"), Plain::Int(0xFFFF_FFFF));
        assert_eq!(resolve_plain("010"), Plain::Int(8));
        assert_eq!(resolve_plain("089"), Plain::Str);
        assert_eq!(resolve_plain("0"), Plain::Int(0));
        assert_eq!(resolve_plain("1.5"), Plain::Float(1.5));
        assert_eq!(resolve_plain("1e-05"), Plain::Float(1e-5));
        assert_eq!(resolve_plain("5."), Plain::Float(5.0));
        assert_eq!(resolve_plain(".5"), Plain::Float(0.5));
        assert_eq!(resolve_plain("."), Plain::Str);
        assert_eq!(resolve_plain("e5"), Plain::Str);
        assert_eq!(resolve_plain("1.5.2"), Plain::Str);
        assert_eq!(resolve_plain("-.inf"), Plain::Float(f64::NEG_INFINITY));
        assert!(matches!(resolve_plain(".nan"), Plain::Float(f) if f.is_nan()));
        assert_eq!(resolve_plain("inf"), Plain::Str);
        assert_eq!(resolve_plain("null"), Plain::Null);
        assert_eq!(resolve_plain("~"), Plain::Str);
        assert_eq!(resolve_plain(""), Plain::Str);
        assert_eq!(
            resolve_plain("99999999999999999999999999999999999"),
            Plain::Int(1 << 100)
        );
        assert!(needs_quotes("29103913"));
        assert!(!needs_quotes("fkisfj 2929 jdj"));
    }
}
