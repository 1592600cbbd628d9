//! EXB instructions as the dt-12345/AINB library's disassembly text, both
//! ways: `STR float GMem[0x8], float 1.5`, `CFN GetBBCodeBool( Bool, Int ), GMem[0x0]`,
//! `JZE GMem[0x4], 0x30`.
//!
//! The text names an operand by where it lives (`GMem[0x8]`, `UserIn[0x0].y`)
//! or by its value (`int 70000`, `str "Run"`, `vec3f (0.0, 1.0, 0.0)`); a
//! value does not say whether the file keeps it in the instruction or in the
//! constant table, nor at which offset of the table or the string pool, and
//! a few bytes (padding, the unused operand of a one-operand instruction)
//! are not shown at all. [`Assembler`] turns a line into an instruction the
//! way the library's writer would (small whole numbers inline, the rest in
//! the constant table, found there first when the table already holds the
//! value). The JSON writer checks every instruction against that: where the
//! assembled bytes are not the file's, it keeps the file's eight bytes under
//! a `$` key, and the reader takes them while the line still reads as those
//! bytes do (an edited line is assembled from its text).

use crate::ainb::schema::Instruction;
use codec_runtime::Str;

/// Names of the library's data types, by its numbering (`InstDataType`).
pub const TYPE_NAMES: [&str; 8] = [
    "NONE", "IMM", "BOOL", "INT", "UINT", "FLOAT", "STRING", "VECTOR3F",
];
/// The prefix an operand of each data type gets in the text.
const TYPE_PREFIX: [&str; 8] = ["", "", "bool", "int", "uint", "float", "str", "vec3f"];
const UINT: usize = 4;
const FLOAT: usize = 5;
const STRING: usize = 6;
const VEC3: usize = 7;

/// Opcodes 1 to 0x1d.
const OPCODES: [&str; 29] = [
    "END", "STR", "NEG", "NOT", "ADD", "SUB", "MUL", "DIV", "MOD", "INC", "DEC", "VMS", "VDS",
    "LSH", "RSH", "LST", "LTE", "GRT", "GTE", "EQL", "NEQ", "AND", "XOR", "ORR", "LAN", "LOR",
    "CFN", "JZE", "JMP",
];
const END: u8 = 1;
const NEG: u8 = 3;
const DEC: u8 = 0xb;
const VMS: u8 = 0xc;
const VDS: u8 = 0xd;
const INC: u8 = 0xa;
const NOT: u8 = 4;
const CFN: u8 = 0x1b;
const JZE: u8 = 0x1c;
const JMP: u8 = 0x1d;

/// Operand kinds: 0 immediate, 1 immediate string, 3 constant, 4 constant
/// string hold values; the others are memory, shown with these prefixes.
const MEMORY: [(u8, &str); 7] = [
    (2, "GMem"),
    (5, "Out"),
    (6, "In"),
    (7, "LMem32"),
    (8, "LMem64"),
    (9, "UserOut"),
    (10, "UserIn"),
];
const IMMEDIATE: u8 = 0;
const IMMEDIATE_STRING: u8 = 1;
const CONSTANT: u8 = 3;
const CONSTANT_STRING: u8 = 4;

/// The library's data type of a stored type number: versions before 3 have
/// no `UINT`, so their numbers from 4 up mean the next type.
pub fn type_of_byte(b: u64, version: u32) -> Option<usize> {
    let t = if b < 4 || version >= 3 { b } else { b + 1 };
    (t < 8).then_some(t as usize)
}

/// The stored number of a data type (`None`: the version has no such type).
pub fn byte_of_type(t: usize, version: u32) -> Option<u64> {
    match t {
        0..=3 => Some(t as u64),
        _ if version >= 3 => Some(t as u64),
        UINT => None,
        _ => Some(t as u64 - 1),
    }
}

/// The tables an instruction's text refers to: the constant words, the
/// string pool and the call signatures.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    pub version: u32,
    pub constants: Vec<u32>,
    pub strings: Vec<Str>,
    pub signatures: Vec<Str>,
    /// The pool's bytes (each string and its NUL) and where each string
    /// starts, kept in step with `strings`.
    pool: Vec<u8>,
    starts: Vec<u64>,
}

impl Tables {
    pub fn new(version: u32, constants: Vec<u32>, strings: Vec<Str>, signatures: Vec<Str>) -> Self {
        let mut t = Tables {
            version,
            constants,
            strings: Vec::new(),
            signatures,
            pool: Vec::new(),
            starts: Vec::new(),
        };
        for s in strings {
            t.push_string(s);
        }
        t
    }

    fn push_string(&mut self, s: Str) -> u64 {
        let at = self.pool.len() as u64;
        self.pool.extend_from_slice(s.as_bytes());
        self.pool.push(0);
        self.starts.push(at);
        self.strings.push(s);
        at
    }

    /// The NUL-terminated text at `offset` of the pool.
    fn string_at(&self, offset: u64) -> Option<&str> {
        let rest = self.pool.get(usize::try_from(offset).ok()?..)?;
        let n = rest.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&rest[..n]).ok()
    }

    /// The constant word at byte `offset` of the table (whole words only).
    fn word(&self, offset: u64) -> Option<u32> {
        if offset % 4 != 0 {
            return None;
        }
        self.constants
            .get(usize::try_from(offset / 4).ok()?)
            .copied()
    }

    /// The offset of `s` in the pool: the first string that is `s`, else
    /// the first place inside a string where `s` is its tail; appended
    /// when absent.
    fn intern_string(&mut self, s: &str) -> u64 {
        if let Some(i) = self.strings.iter().position(|x| x == s) {
            return self.starts[i];
        }
        let mut at = 0;
        while let Some(text) = self.string_at(at as u64) {
            if let Some(k) = text.rfind(s).filter(|k| k + s.len() == text.len()) {
                if !s.is_empty() || text.is_empty() {
                    return (at + k) as u64;
                }
            }
            at += text.len() + 1;
        }
        self.push_string(Str::new(s))
    }

    /// The byte offset in the constant table of these words (the first
    /// place they stand, at a word boundary); appended when absent.
    fn intern_words(&mut self, words: &[u32]) -> u64 {
        self.find_words(words).unwrap_or_else(|| {
            self.constants.extend_from_slice(words);
            (self.constants.len() - words.len()) as u64 * 4
        })
    }

    /// The byte offset of the first place these words stand in the table.
    fn find_words(&self, words: &[u32]) -> Option<u64> {
        self.constants
            .windows(words.len())
            .position(|w| w == words)
            .map(|at| at as u64 * 4)
    }

    fn intern_signature(&mut self, s: &str) -> u32 {
        match self.signatures.iter().position(|x| x == s) {
            Some(i) => i as u32,
            None => {
                self.signatures.push(Str::new(s));
                self.signatures.len() as u32 - 1
            }
        }
    }
}

/// The text of one instruction, without its address: what the library
/// prints for it. An instruction the library cannot show (an unknown
/// opcode, type or operand kind; a value outside its table) gets a form
/// of ours that no assembled line produces, so its raw bytes are kept.
pub fn format(i: &Instruction, t: &Tables) -> String {
    let name = usize::from(i.opcode)
        .checked_sub(1)
        .and_then(|k| OPCODES.get(k));
    let Some(name) = name else {
        return format!("?op{}", i.opcode);
    };
    let dt = type_of_byte(u64::from(i.datatype), t.version);
    match i.opcode {
        END => "END".to_owned(),
        JMP => format!("JMP {:#x}", u32::from(i.op2) * 8),
        JZE => format!(
            "JZE {}, {:#x}",
            operand(dt, i.op1_kind, i.op1, t),
            u32::from(i.op2) * 8
        ),
        CFN => {
            let args = u16::from(i.op1_kind) | u16::from(i.op2_kind) << 8;
            let sig = u32::from(i.op1) | u32::from(i.op2) << 16;
            match t.signatures.get(sig as usize) {
                Some(s) => format!("CFN {s}, GMem[{args:#x}]"),
                None => format!("CFN ?sig{sig}, GMem[{args:#x}]"),
            }
        }
        NEG | NOT | INC | DEC => format!("{name} {}", operand(dt, i.op1_kind, i.op1, t)),
        // The scalar of a vector product or quotient is a float whatever
        // the instruction's type.
        VMS | VDS => format!(
            "{name} {}, {}",
            operand(dt, i.op1_kind, i.op1, t),
            operand(Some(FLOAT), i.op2_kind, i.op2, t)
        ),
        _ => format!(
            "{name} {}, {}",
            operand(dt, i.op1_kind, i.op1, t),
            operand(dt, i.op2_kind, i.op2, t)
        ),
    }
}

/// One operand's text.
fn operand(dt: Option<usize>, kind: u8, raw: u16, t: &Tables) -> String {
    let Some(dt) = dt else {
        return format!("?type {kind}:{raw:#x}");
    };
    let prefix = |body: String| -> String {
        match TYPE_PREFIX[dt] {
            "" => body,
            p => format!("{p} {body}"),
        }
    };
    if let Some((_, p)) = MEMORY.iter().find(|(k, _)| *k == kind) {
        // A float read from a node's vec3 parameter names its component.
        if (kind == 9 || kind == 10) && dt == FLOAT && raw & 0x8000 != 0 {
            let comp = match (raw & 0x7f00) >> 8 {
                0 => "x",
                4 => "y",
                8 => "z",
                _ => return format!("?component {kind}:{raw:#x}"),
            };
            return prefix(format!("{p}[{:#x}].{comp}", raw & 0xff));
        }
        return prefix(format!("{p}[{raw:#x}]"));
    }
    // A value; the library shows an untyped one as its raw number.
    if dt == 0 && kind <= CONSTANT_STRING {
        return raw.to_string();
    }
    let value = match (kind, dt) {
        (IMMEDIATE, 2) => py_bool(raw != 0).to_owned(),
        (IMMEDIATE, 3 | UINT) => raw.to_string(),
        (IMMEDIATE, FLOAT) => py_float(f64::from(raw)),
        (IMMEDIATE_STRING, _) => match t.string_at(u64::from(raw)) {
            Some(s) => format!("\"{s}\""),
            None => return format!("?string {raw:#x}"),
        },
        (CONSTANT, VEC3) => {
            let w = |k: u64| t.word(u64::from(raw) + k);
            match (w(0), w(4), w(8)) {
                (Some(x), Some(y), Some(z)) => format!(
                    "({}, {}, {})",
                    py_float(f64::from(f32::from_bits(x))),
                    py_float(f64::from(f32::from_bits(y))),
                    py_float(f64::from(f32::from_bits(z)))
                ),
                _ => return format!("?constant {raw:#x}"),
            }
        }
        (CONSTANT, 2..=5) => {
            let Some(w) = t.word(u64::from(raw)) else {
                return format!("?constant {raw:#x}");
            };
            match dt {
                2 => py_bool(w != 0).to_owned(),
                3 => (w as i32).to_string(),
                UINT => w.to_string(),
                _ => py_float(f64::from(f32::from_bits(w))),
            }
        }
        (CONSTANT_STRING, _) => match t
            .word(u64::from(raw))
            .and_then(|w| t.string_at(u64::from(w)))
        {
            Some(s) => format!("\"{s}\""),
            None => return format!("?constant string {raw:#x}"),
        },
        _ => return format!("?operand {kind}:{dt}:{raw:#x}"),
    };
    prefix(value)
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// A float as Python's `repr` prints it: the shortest digits that read back
/// as the same double, fixed-point from 1e-4 up to 1e16 (always with a
/// fraction, `3.0`), otherwise with a signed two-digit exponent (`1e-05`).
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // Rust's `{:e}` gives the same shortest digits: `-1.2345e-5`.
    let e = format!("{x:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let (int, frac) = if point <= 0 {
            (
                "0".to_owned(),
                format!("{}{digits}", "0".repeat((-point) as usize)),
            )
        } else if point as usize >= digits.len() {
            (
                format!("{digits}{}", "0".repeat(point as usize - digits.len())),
                "0".to_owned(),
            )
        } else {
            (
                digits[..point as usize].to_owned(),
                digits[point as usize..].to_owned(),
            )
        };
        format!("{sign}{int}.{frac}")
    } else {
        let (head, tail) = digits.split_at(1);
        let dot = if tail.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{head}{dot}{tail}e{esign}{:02}", exp.abs())
    }
}

/// An operand as the text gives it.
#[derive(Debug, Clone, PartialEq)]
enum Operand {
    /// A place: kind and offset (with a node parameter's vec3 component).
    Memory {
        dt: usize,
        kind: u8,
        raw: u16,
    },
    Bool(bool),
    /// An integer of type `int`, `uint` or none.
    Int {
        dt: usize,
        value: i64,
    },
    Float(f64),
    Str(String),
    Vec3([f64; 3]),
}

/// A line's meaning.
#[derive(Debug, Clone, PartialEq)]
enum Line {
    End,
    Jump(u32),
    JumpIfZero(Operand, u32),
    Call { signature: String, args: u16 },
    One(u8, Operand),
    Two(u8, Operand, Operand),
}

/// Builds instructions from lines, adding to the tables what a line needs
/// and they do not hold yet.
#[derive(Debug)]
pub struct Assembler {
    pub tables: Tables,
}

impl Assembler {
    /// The instruction a line of text stands for.
    pub fn assemble(&mut self, text: &str) -> Result<Instruction, String> {
        let line = parse(text)?;
        self.encode(&line)
    }

    fn encode(&mut self, line: &Line) -> Result<Instruction, String> {
        let mut ins = Instruction {
            opcode: 0,
            datatype: 0,
            op1_kind: 0,
            op2_kind: 0,
            op1: 0,
            op2: 0,
        };
        let jump = |addr: u32| -> Result<u16, String> {
            if addr % 8 != 0 {
                return Err(format!("jump address {addr:#x} is not a multiple of 8"));
            }
            u16::try_from(addr / 8).map_err(|_| format!("jump address {addr:#x} is too far"))
        };
        match line {
            Line::End => ins.opcode = END,
            Line::Jump(a) => {
                ins.opcode = JMP;
                ins.op2 = jump(*a)?;
            }
            Line::JumpIfZero(c, a) => {
                ins.opcode = JZE;
                ins.datatype = self.type_byte(c)?;
                (ins.op1_kind, ins.op1) = self.place(c)?;
                ins.op2 = jump(*a)?;
            }
            Line::Call { signature, args } => {
                ins.opcode = CFN;
                ins.datatype = self.call_type(signature)?;
                [ins.op1_kind, ins.op2_kind] = args.to_le_bytes();
                let sig = self.tables.intern_signature(signature);
                ins.op1 = sig as u16;
                ins.op2 = (sig >> 16) as u16;
            }
            Line::One(op, a) => {
                ins.opcode = *op;
                ins.datatype = self.type_byte(a)?;
                (ins.op1_kind, ins.op1) = self.place(a)?;
            }
            Line::Two(op, a, b) => {
                ins.opcode = *op;
                ins.datatype = self.type_byte(a)?;
                (ins.op1_kind, ins.op1) = self.place(a)?;
                (ins.op2_kind, ins.op2) = self.place(b)?;
            }
        }
        Ok(ins)
    }

    fn type_byte(&self, o: &Operand) -> Result<u8, String> {
        let t = match o {
            Operand::Memory { dt, .. } | Operand::Int { dt, .. } => *dt,
            Operand::Bool(_) => 2,
            Operand::Float(_) => FLOAT,
            Operand::Str(_) => STRING,
            Operand::Vec3(_) => VEC3,
        };
        byte_of_type(t, self.tables.version)
            .map(|b| b as u8)
            .ok_or_else(|| {
                format!(
                    "EXB version {} has no {} type",
                    self.tables.version, TYPE_NAMES[t]
                )
            })
    }

    /// A call's type is the first word inside its signature's parentheses.
    fn call_type(&self, signature: &str) -> Result<u8, String> {
        let word = signature
            .rsplit_once('(')
            .map(|(_, r)| r.split([',', ')']).next().unwrap_or("").trim())
            .unwrap_or("");
        let t = TYPE_NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(word))
            .ok_or_else(|| format!("the call's type `{word}` is not an EXB data type"))?;
        self.type_byte(&Operand::Int { dt: t, value: 0 })
    }

    /// Where an operand's value goes: its kind and stored half-word.
    fn place(&mut self, o: &Operand) -> Result<(u8, u16), String> {
        let t = &mut self.tables;
        let constant =
            |at: u64| u16::try_from(at).map_err(|_| "the constant table is past 64 KiB".to_owned());
        Ok(match o {
            Operand::Memory { kind, raw, .. } => (*kind, *raw),
            Operand::Bool(b) => (IMMEDIATE, u16::from(*b)),
            Operand::Int { value, .. } => match u16::try_from(*value) {
                Ok(v) => (IMMEDIATE, v),
                Err(_) => {
                    let w = i32::try_from(*value)
                        .map(|v| v as u32)
                        .or_else(|_| u32::try_from(*value))
                        .map_err(|_| format!("{value} does not fit in 32 bits"))?;
                    (CONSTANT, constant(t.intern_words(&[w]))?)
                }
            },
            // A float the constant table holds is taken from there (the
            // game's files keep even whole floats there); a new whole float
            // from 0 to 65535 is kept inline (version 2 on), like the
            // library's writer does.
            Operand::Float(f) => {
                let bits = (*f as f32).to_bits();
                let inline = t.version >= 2
                    && f.fract() == 0.0
                    && (0.0..=65535.0).contains(f)
                    && !(*f == 0.0 && f.is_sign_negative());
                match t.find_words(&[bits]) {
                    Some(at) => (CONSTANT, constant(at)?),
                    None if inline => (IMMEDIATE, *f as u16),
                    None => (CONSTANT, constant(t.intern_words(&[bits]))?),
                }
            }
            Operand::Str(s) => {
                let at = t.intern_string(s);
                match u16::try_from(at) {
                    Ok(v) => (IMMEDIATE_STRING, v),
                    Err(_) => (CONSTANT_STRING, constant(t.intern_words(&[at as u32]))?),
                }
            }
            Operand::Vec3(v) => {
                let w = v.map(|x| (x as f32).to_bits());
                (CONSTANT, constant(t.intern_words(&w))?)
            }
        })
    }
}

/// Reads a line (an address before the opcode is ignored, as the library
/// does).
fn parse(text: &str) -> Result<Line, String> {
    let s = without_address(text);
    let (op, args) = match s.find(char::is_whitespace) {
        Some(n) => (&s[..n], s[n..].trim()),
        None => (s, ""),
    };
    let code = OPCODES
        .iter()
        .position(|o| o.eq_ignore_ascii_case(op))
        .ok_or_else(|| format!("unknown instruction `{op}`"))? as u8
        + 1;
    let need = |n: usize| -> Result<Vec<&str>, String> {
        let parts = split_operands(args);
        if parts.len() == n && parts.iter().all(|p| !p.is_empty()) {
            Ok(parts)
        } else {
            Err(format!("{op} takes {n} operand(s), not `{args}`"))
        }
    };
    Ok(match code {
        END => Line::End,
        JMP => Line::Jump(number(need(1)?[0])? as u32),
        JZE => {
            let p = need(2)?;
            Line::JumpIfZero(parse_operand(p[0])?, number(p[1])? as u32)
        }
        CFN => {
            // The signature holds commas itself: the arguments' place is
            // the last operand.
            let (sig, mem) = args
                .rsplit_once(',')
                .ok_or_else(|| format!("CFN takes a signature and GMem[...], not `{args}`"))?;
            let Operand::Memory { kind: 2, raw, .. } = parse_operand(mem)? else {
                return Err(format!(
                    "CFN's arguments must be in GMem, not `{}`",
                    mem.trim()
                ));
            };
            Line::Call {
                signature: sig.trim().to_owned(),
                args: raw,
            }
        }
        NEG | NOT | INC | DEC => Line::One(code, parse_operand(need(1)?[0])?),
        _ => {
            let p = need(2)?;
            Line::Two(code, parse_operand(p[0])?, parse_operand(p[1])?)
        }
    })
}

/// Operands split at commas outside quotes and parentheses.
fn split_operands(s: &str) -> Vec<&str> {
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    let mut out = Vec::new();
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// A number as the library reads one: `0x…`, `0b…` or decimal, maybe
/// negative.
fn number(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        i64::from_str_radix(b, 2)
    } else {
        body.parse()
    }
    .map_err(|_| format!("`{s}` is not a number"))?;
    Ok(if neg { -v } else { v })
}

fn parse_operand(text: &str) -> Result<Operand, String> {
    let text = text.trim();
    let (dt, arg) = match text.split_once(char::is_whitespace) {
        Some((p, rest)) => {
            let t = TYPE_PREFIX
                .iter()
                .rposition(|x| !x.is_empty() && x.eq_ignore_ascii_case(p))
                .ok_or_else(|| format!("unknown operand type `{p}`"))?;
            (t, rest.trim())
        }
        None => (0, text),
    };
    if let Some(m) = memory(arg) {
        let (kind, offset, comp) = m?;
        let raw = match comp {
            Some(c) => {
                if offset > 0xff {
                    return Err(format!("`{arg}`: a component's offset is at most 0xff"));
                }
                offset as u16 | 0x8000 | c << 8
            }
            None => u16::try_from(offset).map_err(|_| format!("`{arg}`: offset past 0xffff"))?,
        };
        return Ok(Operand::Memory { dt, kind, raw });
    }
    Ok(match dt {
        2 => Operand::Bool(arg.eq_ignore_ascii_case("true")),
        0 | 3 | UINT => Operand::Int {
            dt,
            value: number(arg)?,
        },
        FLOAT => Operand::Float(float(arg)?),
        STRING => {
            let inner = arg
                .strip_prefix('"')
                .and_then(|a| a.strip_suffix('"'))
                .ok_or_else(|| format!("`{arg}` is not a string in quotes"))?;
            Operand::Str(inner.to_owned())
        }
        VEC3 => {
            let inner = arg
                .strip_prefix('(')
                .and_then(|a| a.strip_suffix(')'))
                .ok_or_else(|| format!("`{arg}` is not a vector (x, y, z)"))?;
            let v: Vec<f64> = inner.split(',').map(float).collect::<Result<_, _>>()?;
            let v: [f64; 3] = v
                .try_into()
                .map_err(|_| format!("`{arg}` does not have three components"))?;
            Operand::Vec3(v)
        }
        _ => {
            return Err(format!(
                "`{text}`: a {} operand must be a place",
                TYPE_NAMES[dt]
            ))
        }
    })
}

fn float(s: &str) -> Result<f64, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number", s.trim()))
}

/// `GMem[0x10]`, `UserIn[0x0].y`: the kind, the offset and the component's
/// byte offset (`None` when the text is no place).
#[allow(clippy::type_complexity)]
fn memory(arg: &str) -> Option<Result<(u8, u64, Option<u16>), String>> {
    let (name, rest) = arg.split_once('[')?;
    let (kind, _) = MEMORY.iter().find(|(_, p)| *p == name.trim())?;
    let Some((offset, tail)) = rest.split_once(']') else {
        return Some(Err(format!("`{arg}`: no closing `]`")));
    };
    let offset = match number(offset) {
        Ok(v) if v >= 0 => v as u64,
        _ => return Some(Err(format!("`{arg}`: bad offset"))),
    };
    let comp = match tail.trim() {
        "" => None,
        ".x" | ".X" if *kind >= 9 => Some(0),
        ".y" | ".Y" if *kind >= 9 => Some(4),
        ".z" | ".Z" if *kind >= 9 => Some(8),
        t => return Some(Err(format!("`{arg}`: unexpected `{t}`"))),
    };
    Some(Ok((*kind, offset, comp)))
}

/// Whether a line of text still says what these bytes say (its address
/// aside): then the bytes are taken as they are.
pub fn same_line(line: &str, raw: &Instruction, t: &Tables) -> bool {
    format(raw, t) == without_address(line)
}

/// A line without the address the library prints before the opcode.
fn without_address(line: &str) -> &str {
    let s = line.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(rest) => {
            let n = rest
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(rest.len());
            rest[n..].trim_start()
        }
        None => s,
    }
}

/// The eight bytes of an instruction as hex, for the `$` keys.
pub fn hex(i: &Instruction) -> String {
    let [a, b] = i.op1.to_le_bytes();
    let [c, d] = i.op2.to_le_bytes();
    [i.opcode, i.datatype, i.op1_kind, i.op2_kind, a, b, c, d]
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// An instruction from its sixteen hex digits.
pub fn unhex(s: &str) -> Option<Instruction> {
    if s.len() != 16 || !s.is_ascii() {
        return None;
    }
    let b: Vec<u8> = (0..8)
        .map(|k| u8::from_str_radix(&s[2 * k..2 * k + 2], 16).ok())
        .collect::<Option<_>>()?;
    Some(Instruction {
        opcode: b[0],
        datatype: b[1],
        op1_kind: b[2],
        op2_kind: b[3],
        op1: u16::from_le_bytes([b[4], b[5]]),
        op2: u16::from_le_bytes([b[6], b[7]]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python_repr() {
        for (x, s) in [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (-0.0, "-0.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (123456789012345.0, "123456789012345.0"),
            (f64::from(0.1f32), "0.10000000149011612"),
            (1.5e-7, "1.5e-07"),
            (2.5e20, "2.5e+20"),
            (65535.0, "65535.0"),
        ] {
            assert_eq!(py_float(x), s, "{x}");
        }
    }

    fn tables() -> Tables {
        Tables::new(
            2,
            vec![70000, 0.25f32.to_bits(), 0, 1.0f32.to_bits(), 0, 4],
            vec![Str::new("Run"), Str::new("Walk")],
            vec![Str::new("GetBBCodeBool( Bool, Int )")],
        )
    }

    #[test]
    fn lines_assemble_to_what_they_print() {
        let t = tables();
        let mut a = Assembler { tables: t.clone() };
        for line in [
            "END",
            "JMP 0x30",
            "STR int GMem[0x8], int 70000",
            "STR float GMem[0x0], float 0.25",
            "STR float GMem[0x0], float 3.0",
            "ADD vec3f LMem32[0x4], vec3f (0.0, 1.0, 0.0)",
            "STR str LMem64[0x0], str \"Walk\"",
            "STR str LMem64[0x0], str \"alk\"",
            "STR float Out[0x0], float UserIn[0x4].y",
            "CFN GetBBCodeBool( Bool, Int ), GMem[0x10]",
            "JZE GMem[0x4], 0x18",
            "NOT bool Out[0x0]",
            "VMS vec3f Out[0x0], float In[0x4]",
            "EQL bool Out[0x0], bool True",
        ] {
            let ins = a.assemble(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(format(&ins, &a.tables), line);
        }
        // Nothing was added: every value was found where it stands.
        assert_eq!(a.tables.constants, t.constants);
        assert_eq!(a.tables.strings, t.strings);
        assert_eq!(a.tables.signatures, t.signatures);
    }

    #[test]
    fn new_values_are_added_to_the_tables() {
        let mut a = Assembler { tables: tables() };
        let i = a
            .assemble("0x0008    STR float GMem[0x0], float 0.75")
            .unwrap();
        assert_eq!((i.op2_kind, i.op2), (CONSTANT, 24));
        assert_eq!(a.tables.constants[6], 0.75f32.to_bits());
        let i = a.assemble("STR str GMem[0x0], str \"Jump\"").unwrap();
        assert_eq!((i.op2_kind, i.op2), (IMMEDIATE_STRING, 9));
        let i = a.assemble("CFN Other( Int ), GMem[0x0]").unwrap();
        assert_eq!((i.datatype, i.op1), (3, 1));
    }

    #[test]
    fn bad_lines_say_why() {
        let mut a = Assembler { tables: tables() };
        for (line, says) in [
            ("FOO 1", "unknown instruction `FOO`"),
            ("STR int GMem[0x0]", "STR takes 2 operand(s)"),
            ("STR wat GMem[0x0], int 1", "unknown operand type `wat`"),
            ("STR str GMem[0x0], str Run", "not a string in quotes"),
            ("JMP 0x3", "not a multiple of 8"),
        ] {
            let e = a.assemble(line).unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
        }
    }

    #[test]
    fn version_2_numbers_types_without_uint() {
        assert_eq!(type_of_byte(4, 2), Some(FLOAT));
        assert_eq!(type_of_byte(4, 3), Some(UINT));
        assert_eq!(byte_of_type(UINT, 2), None);
        assert_eq!(byte_of_type(VEC3, 2), Some(6));
    }
}
