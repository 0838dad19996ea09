//! The packetdrill language, the subset about one TCP sender (google/
//! packetdrill's README and gtests/net/tcp scripts): timed system calls,
//! inbound (`<`) and expected outbound (`>`) packets, `%{ assert }%`
//! blocks on tcp_info, and backquoted shell lines (sysctls).
//!
//! Scripts are untrusted input: nothing here panics or slices a `&str`
//! off a char boundary, whatever the bytes. What packetdrill itself would
//! refuse (its lexer.l and parser.y, and the checks run.c makes before it
//! runs an event) is a `ParseError` naming the line; what is valid
//! packetdrill but outside what the interpreter models becomes
//! `Action::Unsupported`, reported at run time, so that a script from
//! the upstream corpora is never called malformed.

/// When an event happens, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum When {
    /// Absolute script time.
    At(i64),
    /// Relative to the previous event.
    After(i64),
    /// A window [a, b], absolute or relative.
    Range { from: i64, to: i64, relative: bool },
    /// Any time (`*`).
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    /// Flags as written: S, S., ., P., F., R, ... (`-` is written as "").
    pub flags: String,
    /// Relative sequence range start:end and payload length.
    pub start: u64,
    pub end: u64,
    pub ack: Option<u64>,
    pub win: Option<u64>,
    /// The urgent pointer (`urg N`).
    pub urg: Option<u64>,
    pub options: Vec<TcpOption>,
}

impl Packet {
    pub fn syn(&self) -> bool {
        self.flags.contains('S')
    }
    pub fn fin(&self) -> bool {
        self.flags.contains('F')
    }
    pub fn rst(&self) -> bool {
        self.flags.contains('R')
    }
    /// Valid flags the engine has no counterpart for: ECN's E, W and A
    /// (RFC 3168, AccECN's AE), URG, and AccECN's ACE counter digits.
    pub fn unmodelled_flags(&self) -> Option<String> {
        let f: String = self
            .flags
            .chars()
            .filter(|c| !".FSRP".contains(*c))
            .collect();
        (!f.is_empty()).then_some(f)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TcpOption {
    Mss(u32),
    SackOk,
    WScale(u8),
    Timestamp {
        val: u64,
        ecr: u64,
    },
    /// SACK blocks, relative sequence numbers.
    Sack(Vec<(u64, u64)>),
    Nop,
    Eol,
    /// A valid option the engine does not model (md5, FO, FOEXP, ECN),
    /// as written.
    Other(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Syscall {
        name: String,
        args: Vec<String>,
        ret: String,
    },
    Inbound(Packet),
    Outbound(Packet),
    /// Python lines between %{ and }%.
    Python(Vec<String>),
    Shell(String),
    /// Something the interpreter recognises but does not model (ECN
    /// marks, IP fields, ICMP, -D symbols).
    Unsupported(String),
    /// A command-line option given in the script (`--tolerance_usecs=N`).
    Option {
        name: String,
        value: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// 1-based line of the script where the event starts.
    pub line: usize,
    pub when: When,
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters, where the error can be pointed at.
    pub column: Option<usize>,
    pub message: String,
}

const SEC: i64 = 1_000_000;

/// The longest time between two events, 924.6 s: how long Linux keeps
/// retransmitting before it gives up on a connection. Each
/// tcp_retransmit_timer() asks tcp_write_timeout() whether
/// retransmits_timed_out(sk, tcp_retries2 = 15): the time since the first
/// retransmission against tcp_model_timeout(), an RTO doubling from
/// TCP_RTO_MIN (200 ms) up to TCP_RTO_MAX (120 s), (2^10 - 1) * 200 ms =
/// 204.6 s, then (15 - 9) * 120 s (net/ipv4/tcp_timer.c); past it
/// tcp_write_err() kills the connection (ETIMEDOUT). A longer silence of
/// the peer leaves no connection with data in flight for a script to
/// check, and the engine, which does not give up, would be stepped
/// through every timer of the gap: the interpreter refuses such a gap
/// (a `ParseError` at its line) rather than spend time and memory that
/// grow with it.
pub const MAX_GAP_US: i64 = 924_600_000;

/// The latest script time (2^45 us, about 407 days): the engine's clock
/// in nanoseconds stays far from overflowing whatever the script.
pub const MAX_TIME_US: i64 = 1 << 45;

/// The widest --tolerance_usecs: one gap.
pub const MAX_TOLERANCE_US: i64 = MAX_GAP_US;

/// TCP's option space (RFC 9293 section 3.1: data offset of at most 15
/// words; packetdrill's tcp_options_append(): "TCP option list too
/// long").
const MAX_OPTION_BYTES: usize = 40;

fn seconds(us: i64) -> String {
    let s = format!("{}.{:06}", us / SEC, us % SEC);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One statement: a line, or several when a quote, a `%{ }%` block or a
/// parenthesis is still open at its end, with comments blanked out.
struct Stmt {
    line: usize,
    text: String,
    /// (byte offset in `text`, line, column) where the text resumes after
    /// something the lexer dropped.
    marks: Vec<(usize, usize, usize)>,
}

impl Stmt {
    /// The line and column of `sub`, a slice of `self.text`.
    fn pos(&self, sub: &str) -> (usize, Option<usize>) {
        let base = self.text.as_ptr() as usize;
        let p = sub.as_ptr() as usize;
        if p < base || p > base + self.text.len() {
            return (self.line, None);
        }
        let off = p - base;
        let k = self.marks.partition_point(|m| m.0 <= off);
        let Some(&(start, mut line, mut col)) = k.checked_sub(1).and_then(|k| self.marks.get(k))
        else {
            return (self.line, None);
        };
        for c in self.text.get(start..off).unwrap_or("").chars() {
            if c == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        (line, Some(col))
    }

    fn err(&self, at: &str, message: impl Into<String>) -> ParseError {
        let (line, column) = self.pos(at);
        ParseError {
            line,
            column,
            message: message.into(),
        }
    }
}

#[derive(Clone, Copy)]
enum Lex {
    Normal,
    LineComment,
    /// Where the quote or block opened.
    Block(usize, usize),
    Str(usize, usize),
    Tick(usize, usize),
    Code(usize, usize),
}

/// Splits a script into statements, as packetdrill's lexer.l reads it:
/// `//` and `/* */` comments are whitespace, strings, backquoted commands
/// and `%{ }%` code may hold anything (and span lines), and everything
/// else is ASCII. Walks chars, never bytes.
fn statements(text: &str) -> Result<Vec<Stmt>, ParseError> {
    let mut out = Vec::new();
    let new = |line| Stmt {
        line,
        text: String::new(),
        marks: Vec::new(),
    };
    let mut cur = new(1);
    let mut state = Lex::Normal;
    // Open parentheses outside quotes, and where the outermost opened.
    let mut depth = 0usize;
    let mut open_at = (0, 0);
    let (mut line, mut col) = (1usize, 1usize);
    // Where the next char pushed would continue the text without a mark.
    let mut expect = (0usize, 0usize);
    let mut it = text.chars().peekable();
    let push = |cur: &mut Stmt, c: char, line: usize, col: usize, expect: &mut (usize, usize)| {
        if *expect != (line, col) {
            cur.marks.push((cur.text.len(), line, col));
        }
        cur.text.push(c);
        *expect = if c == '\n' {
            (line + 1, 1)
        } else {
            (line, col + 1)
        };
    };
    while let Some(c) = it.next() {
        let next = it.peek().copied();
        let (l, k) = (line, col);
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
        match state {
            Lex::Normal | Lex::LineComment | Lex::Block(..) if c == '\n' => {
                if let Lex::LineComment = state {
                    state = Lex::Normal;
                }
                if depth == 0 {
                    out.push(std::mem::replace(&mut cur, new(line)));
                } else {
                    // A call whose parentheses are open goes on.
                    push(&mut cur, ' ', l, k, &mut expect);
                }
            }
            Lex::LineComment => {}
            Lex::Block(..) => {
                if c == '*' && next == Some('/') {
                    it.next();
                    col += 1;
                    state = Lex::Normal;
                }
            }
            Lex::Str(..) | Lex::Tick(..) => {
                push(&mut cur, c, l, k, &mut expect);
                let close = if let Lex::Str(..) = state { '"' } else { '`' };
                if c == '\\' {
                    // lexer.l: \"(\\.|[^"])*\" -- a backslash escapes
                    // whatever follows.
                    if let Some(n) = it.next() {
                        push(&mut cur, n, line, col, &mut expect);
                        if n == '\n' {
                            line += 1;
                            col = 1;
                        } else {
                            col += 1;
                        }
                    }
                } else if c == close {
                    state = Lex::Normal;
                }
            }
            Lex::Code(..) => {
                push(&mut cur, c, l, k, &mut expect);
                if c == '}' && next == Some('%') {
                    it.next();
                    push(&mut cur, '%', line, col, &mut expect);
                    col += 1;
                    state = Lex::Normal;
                }
            }
            Lex::Normal => match c {
                '/' if next == Some('/') => state = Lex::LineComment,
                '/' if next == Some('*') => {
                    it.next();
                    col += 1;
                    // A comment separates tokens as a blank does.
                    push(&mut cur, ' ', l, k, &mut expect);
                    state = Lex::Block(l, k);
                }
                '"' => {
                    push(&mut cur, c, l, k, &mut expect);
                    state = Lex::Str(l, k);
                }
                '`' => {
                    push(&mut cur, c, l, k, &mut expect);
                    state = Lex::Tick(l, k);
                }
                '%' if next == Some('{') => {
                    it.next();
                    push(&mut cur, '%', l, k, &mut expect);
                    push(&mut cur, '{', line, col, &mut expect);
                    col += 1;
                    state = Lex::Code(l, k);
                }
                '(' => {
                    if depth == 0 {
                        open_at = (l, k);
                    }
                    depth += 1;
                    push(&mut cur, c, l, k, &mut expect);
                }
                ')' => {
                    if depth == 0 {
                        return Err(ParseError {
                            line: l,
                            column: Some(k),
                            message: "')' without a '(' before it".into(),
                        });
                    }
                    depth -= 1;
                    push(&mut cur, c, l, k, &mut expect);
                }
                // Windows line ends: the \r is a blank.
                '\t' | '\r' => push(&mut cur, ' ', l, k, &mut expect),
                c if !c.is_ascii() => {
                    return Err(ParseError {
                        line: l,
                        column: Some(k),
                        message: format!(
                            "non-ASCII character {c:?} (U+{:04X}) outside a comment, string, \
                             command or %{{ }}% block",
                            c as u32
                        ),
                    })
                }
                c if c.is_ascii_control() => {
                    return Err(ParseError {
                        line: l,
                        column: Some(k),
                        message: format!("control character U+{:04X}", c as u32),
                    })
                }
                c => push(&mut cur, c, l, k, &mut expect),
            },
        }
    }
    let unclosed = |what: &str, (l, k): (usize, usize)| ParseError {
        line: l,
        column: Some(k),
        message: format!("{what} is never closed"),
    };
    match state {
        Lex::Block(l, k) => return Err(unclosed("this /* comment", (l, k))),
        Lex::Str(l, k) => return Err(unclosed("this \" string", (l, k))),
        Lex::Tick(l, k) => return Err(unclosed("this ` command", (l, k))),
        Lex::Code(l, k) => return Err(unclosed("this %{ block", (l, k))),
        Lex::Normal | Lex::LineComment => {}
    }
    if depth > 0 {
        return Err(unclosed("this '('", open_at));
    }
    out.push(cur);
    Ok(out)
}

/// Seconds as packetdrill's lexer.l reads them, `[0-9]+` or
/// `[0-9]*[.][0-9]+` (no sign, exponent, `nan` or `inf`), in whole
/// microseconds, rounded.
fn seconds_to_us(s: &str) -> Result<i64, String> {
    if s.starts_with('-') {
        // parser.y `time`: "negative time".
        return Err(format!("negative time {s:?}"));
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    let well_formed = digits(int)
        && digits(frac)
        && if s.contains('.') {
            !frac.is_empty()
        } else {
            !int.is_empty()
        };
    if !well_formed {
        return Err(format!(
            "bad time {s:?}: packetdrill times are decimal seconds such as 2, 0.100 or .1"
        ));
    }
    // Up to 10^12 s: no overflow in microseconds; the gap and script-time
    // checks refuse far less.
    let too_big = || format!("time {s} s is out of range");
    let whole = int.trim_start_matches('0');
    if whole.len() > 12 {
        return Err(too_big());
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| too_big())?
    };
    let mut us = 0i64;
    for (i, b) in frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(7)
        .enumerate()
    {
        let d = i64::from(b - b'0');
        if i < 6 {
            us = us * 10 + d;
        } else if d >= 5 {
            us += 1;
        }
    }
    Ok(whole * SEC + us)
}

/// packetdrill's event_time (parser.y): `T`, `+T`, `*`, `A~B`, `+A~+B`,
/// and a blocking call's `T...END` (syscall_spec's opt_end_time). The
/// bool says whether it was the latter.
fn parse_when(tok: &str) -> Result<(When, bool), String> {
    if tok == "*" {
        return Ok((When::Any, false));
    }
    let (relative, body) = match tok.strip_prefix('+') {
        Some(b) => (true, b),
        None => (false, tok),
    };
    let range = |a: &str, b: &str, ellipsis: bool| -> Result<(When, bool), String> {
        let (from, to) = (seconds_to_us(a)?, seconds_to_us(b)?);
        if to < from {
            // parser.y `event`: "time range is backwards".
            return Err(format!("time range {tok} is backwards"));
        }
        Ok((When::Range { from, to, relative }, ellipsis))
    };
    if let Some((a, b)) = body.split_once("...") {
        return range(a, b, true);
    }
    if let Some((a, b)) = body.split_once('~') {
        let b = match (relative, b.strip_prefix('+')) {
            (true, Some(b)) => b,
            (false, None) => b,
            _ => {
                return Err(format!(
                    "time range {tok}: both ends relative (+A~+B) or both absolute (A~B)"
                ))
            }
        };
        return range(a, b, false);
    }
    let t = seconds_to_us(body)?;
    Ok((
        if relative {
            When::After(t)
        } else {
            When::At(t)
        },
        false,
    ))
}

/// A number where packetdrill's grammar wants an INTEGER of at most
/// `max`. A name there is a symbol only packetdrill's command line can
/// define (`-D MSS=1000`, lexer.l word()): valid packetdrill, but not for
/// us.
enum Num {
    Ok(u64),
    Symbol(String),
    Bad(String),
}

fn number(w: &str, max: u64, what: &str) -> Num {
    let is_symbol = w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if is_symbol {
        return Num::Symbol(w.to_string());
    }
    // lexer.l's INTEGER is decimal; u64::from_str would take a '+' too.
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
        return Num::Bad(format!("{what}: {w:?} is not a decimal number"));
    }
    match w.parse::<u64>() {
        Ok(v) if v <= max => Num::Ok(v),
        _ => Num::Bad(format!("{what} {w} out of range (at most {max})")),
    }
}

/// What `parse_packet` gives when the packet cannot be taken as it is.
enum PacketErr {
    /// Not packetdrill.
    Bad(ParseError),
    /// packetdrill, but not modelled.
    Unsupported(String),
}

/// packetdrill's valid_tcp_flags (tcp_packet.c).
const VALID_FLAGS: &str = ".FSRPEWAU01234567";

fn check_flags(w: &str) -> Result<(), String> {
    if w == "-" {
        return Ok(());
    }
    // is_tcp_flags_spec_valid(): known characters, and no ECN flag next
    // to an AccECN counter or two counters.
    let (mut ecn, mut ace) = (false, false);
    for c in w.chars() {
        if !VALID_FLAGS.contains(c) {
            return Err(format!(
                "invalid TCP flag {c:?} in {w:?} (packetdrill takes {VALID_FLAGS} or -)"
            ));
        }
        let conflict = if "EWA".contains(c) {
            ace
        } else {
            c.is_ascii_digit() && (ecn || ace)
        };
        if conflict {
            return Err(format!("conflicting TCP flag {c:?} in {w:?}"));
        }
        ecn |= "EWA".contains(c);
        ace |= c.is_ascii_digit();
    }
    Ok(())
}

fn parse_options(st: &Stmt, s: &str, outbound: bool) -> Result<Vec<TcpOption>, PacketErr> {
    let bad = |at: &str, m: String| PacketErr::Bad(st.err(at, m));
    if s.trim() == "..." {
        if !outbound {
            // parser.y tcp_packet_spec.
            return Err(bad(
                s,
                "<...> for TCP options can only be used with outbound packets".into(),
            ));
        }
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut bytes = 0usize;
    for part in s.split(',') {
        let p = part.trim();
        let words: Vec<&str> = p.split_whitespace().collect();
        let Some(&name) = words.first() else {
            return Err(bad(part, "an empty TCP option".into()));
        };
        let want = |n: usize| -> Result<(), PacketErr> {
            if words.len() == n {
                Ok(())
            } else {
                Err(bad(p, format!("TCP option {p:?}: expected {n} word(s)")))
            }
        };
        let num = |i: usize, max: u64, what: &str| -> Result<u64, PacketErr> {
            let w = words.get(i).copied().unwrap_or("");
            match number(w, max, what) {
                Num::Ok(v) => Ok(v),
                Num::Symbol(s) => Err(PacketErr::Unsupported(format!(
                    "{s} in {p:?}: a symbol packetdrill's -D defines"
                ))),
                Num::Bad(m) => Err(bad(if w.is_empty() { p } else { w }, m)),
            }
        };
        let hex_blob = |len_base: usize| -> Result<usize, PacketErr> {
            match words.len() {
                1 => Ok(len_base),
                2 if words[1].bytes().all(|b| b.is_ascii_hexdigit())
                    && words[1].len().is_multiple_of(2) =>
                {
                    Ok(len_base + words[1].len() / 2)
                }
                2 => Err(PacketErr::Unsupported(format!(
                    "{:?} in {p:?}: not a hex blob (a -D symbol?)",
                    words[1]
                ))),
                _ => Err(bad(p, format!("TCP option {p:?}: too many words"))),
            }
        };
        // parser.y tcp_option; lengths as TCPOLEN_* in tcp.h.
        let (opt, len) = match name {
            "nop" => {
                want(1)?;
                (TcpOption::Nop, 1)
            }
            "eol" => {
                want(1)?;
                (TcpOption::Eol, 1)
            }
            "mss" => {
                want(2)?;
                (TcpOption::Mss(num(1, 0xffff, "mss")? as u32), 4)
            }
            "wscale" => {
                want(2)?;
                (TcpOption::WScale(num(1, 0xff, "wscale")? as u8), 3)
            }
            "sackOK" => {
                want(1)?;
                (TcpOption::SackOk, 2)
            }
            "sack" => {
                if words.len() < 2 {
                    return Err(bad(p, "sack without blocks".into()));
                }
                let mut blocks = Vec::new();
                for (i, w) in words.iter().enumerate().skip(1) {
                    let Some((a, b)) = w.split_once(':') else {
                        return Err(bad(w, format!("SACK block {w:?}: expected START:END")));
                    };
                    let edge = |x: &str| match number(x, u64::from(u32::MAX), "SACK edge") {
                        Num::Ok(v) => Ok(v),
                        Num::Symbol(s) => Err(PacketErr::Unsupported(format!(
                            "{s} in {p:?}: a symbol packetdrill's -D defines"
                        ))),
                        Num::Bad(m) => Err(bad(words[i], m)),
                    };
                    blocks.push((edge(a)?, edge(b)?));
                }
                let n = blocks.len();
                (TcpOption::Sack(blocks), 2 + 8 * n)
            }
            "TS" => {
                if words.len() != 5 || words[1] != "val" || words[3] != "ecr" {
                    return Err(bad(p, format!("{p:?}: expected TS val N ecr N")));
                }
                let val = num(2, u64::from(u32::MAX), "TS val")?;
                let ecr = num(4, u64::from(u32::MAX), "TS ecr")?;
                (TcpOption::Timestamp { val, ecr }, 10)
            }
            // TCPOLEN_MD5SIG: 18 bytes whatever the digest written.
            "md5" => (TcpOption::Other(p.to_string()), hex_blob(18).map(|_| 18)?),
            "FO" => (TcpOption::Other(p.to_string()), hex_blob(2)?),
            "FOEXP" => (TcpOption::Other(p.to_string()), hex_blob(4)?),
            "ECN" => {
                // AccECN: e0b/ceb/e1b and 24-bit counters.
                let fields = words.len().saturating_sub(1);
                if fields == 0 || !fields.is_multiple_of(2) || fields > 6 {
                    return Err(bad(p, format!("{p:?}: expected ECN e0b N [ceb N [e1b N]]")));
                }
                for i in (1..words.len()).step_by(2) {
                    if !["e0b", "ceb", "e1b"].contains(&words[i]) {
                        return Err(bad(
                            words[i],
                            format!("{:?}: not an AccECN field", words[i]),
                        ));
                    }
                    num(i + 1, (1 << 24) - 1, "AccECN counter")?;
                }
                (TcpOption::Other(p.to_string()), 2 + 3 * fields / 2)
            }
            other => {
                return Err(bad(
                    other,
                    format!(
                        "unknown TCP option {other:?} (packetdrill's are nop, eol, mss, \
                         wscale, sackOK, sack, TS, md5, FO, FOEXP, ECN)"
                    ),
                ))
            }
        };
        bytes += len;
        if bytes > MAX_OPTION_BYTES {
            return Err(bad(
                p,
                format!("TCP option list too long: over {MAX_OPTION_BYTES} bytes"),
            ));
        }
        out.push(opt);
    }
    Ok(out)
}

/// packetdrill's tcp_packet_spec (parser.y): FLAGS START:END(LEN) [ack
/// N] [win N] [urg N] [<OPTIONS>], after the direction.
fn parse_packet(st: &Stmt, rest: &str, outbound: bool) -> Result<Packet, PacketErr> {
    let bad = |at: &str, m: String| PacketErr::Bad(st.err(at, m));
    let (head, options) = match rest.find('<') {
        Some(i) => {
            let Some(inner) = rest[i + 1..].trim_end().strip_suffix('>') else {
                return Err(bad(
                    &rest[i..],
                    "the TCP option list <...> must close with '>' and end the line".into(),
                ));
            };
            (&rest[..i], parse_options(st, inner, outbound)?)
        }
        None => (rest, Vec::new()),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let Some(&flags) = words.first() else {
        return Err(bad(rest, "a packet without flags".into()));
    };
    check_flags(flags).map_err(|m| bad(flags, m))?;
    let Some(&range) = words.get(1) else {
        return Err(bad(
            flags,
            "no sequence range START:END(LEN) after the flags".into(),
        ));
    };
    let shape = || bad(range, format!("{range:?}: expected START:END(LEN)"));
    let (se, len) = range.split_once('(').ok_or_else(shape)?;
    let len = len.strip_suffix(')').ok_or_else(shape)?;
    let (s, e) = se.split_once(':').ok_or_else(shape)?;
    // parser.y `seq`: 32-bit sequence numbers, a 16-bit payload size.
    let field = |w: &str, max: u64, what: &str| match number(w, max, what) {
        Num::Ok(v) => Ok(v),
        Num::Symbol(s) => Err(PacketErr::Unsupported(format!(
            "{s} in {range:?}: a symbol packetdrill's -D defines"
        ))),
        Num::Bad(m) => Err(bad(range, m)),
    };
    let start = field(s, u64::from(u32::MAX), "TCP start sequence number")?;
    let end = field(e, u64::from(u32::MAX), "TCP end sequence number")?;
    let len = field(len, 0xffff, "TCP payload size")?;
    if start.checked_add(len) != Some(end) {
        return Err(bad(
            range,
            format!("inconsistent TCP sequence numbers and payload size: {range}"),
        ));
    }
    let mut p = Packet {
        flags: if flags == "-" {
            String::new()
        } else {
            flags.to_string()
        },
        start,
        end,
        ack: None,
        win: None,
        urg: None,
        options,
    };
    // Each field at most once, in the grammar's order.
    let mut i = 2;
    for (key, max) in [
        ("ack", u64::from(u32::MAX)),
        ("win", 0xffff),
        ("urg", 0xffff),
    ] {
        if words.get(i) != Some(&key) {
            continue;
        }
        let Some(&w) = words.get(i + 1) else {
            return Err(bad(words[i], format!("{key} without a value")));
        };
        let v = match number(w, max, key) {
            Num::Ok(v) => v,
            Num::Symbol(s) => {
                return Err(PacketErr::Unsupported(format!(
                    "{key} {s}: a symbol packetdrill's -D defines"
                )))
            }
            Num::Bad(m) => return Err(bad(w, m)),
        };
        match key {
            "ack" => p.ack = Some(v),
            "win" => p.win = Some(v),
            _ => p.urg = Some(v),
        }
        i += 2;
    }
    if let Some(&w) = words.get(i) {
        return Err(bad(
            w,
            format!("unexpected {w:?}: a TCP packet is FLAGS START:END(LEN) [ack N] [win N] [urg N] [<OPTIONS>]"),
        ));
    }
    Ok(p)
}

/// Byte offsets of the body of the backquoted command that starts `s`
/// and of its closing backquote (both ASCII, so char boundaries).
fn backquoted(s: &str) -> Option<(usize, usize)> {
    let body = s.find('`')? + 1;
    let mut esc = false;
    for (i, c) in s.get(body..)?.char_indices() {
        if esc {
            esc = false;
        } else if c == '\\' {
            esc = true;
        } else if c == '`' {
            return Some((body, body + i));
        }
    }
    None
}

fn after_close(st: &Stmt, s: &str, end: usize, close: &str) -> Result<(), ParseError> {
    let tail = s.get(end + close.len()..).unwrap_or("").trim();
    if tail.is_empty() {
        Ok(())
    } else {
        Err(st.err(
            tail,
            format!("unexpected {tail:?} after the closing {close}"),
        ))
    }
}

fn shell(st: &Stmt, s: &str) -> Result<String, ParseError> {
    let (a, b) = backquoted(s).ok_or_else(|| st.err(s, "this ` command is never closed"))?;
    after_close(st, s, b, "`")?;
    Ok(s[a..b].replace("\\\n", " ").trim().to_string())
}

fn python(st: &Stmt, s: &str) -> Result<Vec<String>, ParseError> {
    let body = s.trim_start().get(2..).unwrap_or("");
    let Some(end) = body.find("}%") else {
        return Err(st.err(s, "this %{ block is never closed"));
    };
    after_close(st, body, end, "}%")?;
    Ok(body[..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// packetdrill's syscall_spec (parser.y): NAME(ARGS) = RESULT [ERRNO
/// (NOTE)].
fn parse_syscall(st: &Stmt, rest: &str) -> Result<Action, ParseError> {
    let Some(open) = rest.find('(') else {
        return Err(st.err(
            rest,
            format!("not a packet, system call or block: {rest:?}"),
        ));
    };
    let name = rest[..open].trim();
    let ident = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(st.err(rest, format!("{name:?} is not a system call name")));
    }
    // Arguments up to the parenthesis that closes the first one, split at
    // top-level commas; strings may hold anything.
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    let mut arg_start = open + 1;
    let mut close = None;
    for (i, c) in rest[open..].char_indices() {
        let i = open + i;
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if c != ')' {
                        return Err(st.err(&rest[i..], format!("{c:?} closes the call's '('")));
                    }
                    close = Some(i);
                    break;
                }
            }
            ',' if depth == 1 => {
                args.push(rest[arg_start..i].trim().to_string());
                arg_start = i + 1;
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return Err(st.err(&rest[open..], "this '(' is never closed"));
    };
    let last = rest[arg_start..close].trim();
    if !last.is_empty() {
        args.push(last.to_string());
    }
    let tail = rest[close + 1..].trim();
    let Some(ret) = tail.strip_prefix('=') else {
        return Err(st.err(
            if tail.is_empty() {
                &rest[close..]
            } else {
                tail
            },
            format!("{name}(): expected '= RESULT' after the call"),
        ));
    };
    let ret = ret.trim();
    if ret.is_empty() {
        return Err(st.err(tail, format!("{name}(): no result after '='")));
    }
    Ok(Action::Syscall {
        name: name.to_string(),
        args,
        ret: ret.to_string(),
    })
}

/// Parses a whole script, given as bytes: what is not UTF-8 is an error
/// naming its line and column.
pub fn parse_bytes(bytes: &[u8]) -> Result<Vec<Event>, ParseError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let text = std::str::from_utf8(good).unwrap_or("");
            let line = 1 + text.matches('\n').count();
            let column = 1 + text.rsplit('\n').next().unwrap_or("").chars().count();
            Err(ParseError {
                line,
                column: Some(column),
                message: format!(
                    "not UTF-8: byte 0x{:02x}",
                    bytes.get(e.valid_up_to()).copied().unwrap_or(0)
                ),
            })
        }
    }
}

/// Parses a whole script.
pub fn parse(text: &str) -> Result<Vec<Event>, ParseError> {
    let mut events = Vec::new();
    // The script's own time (us), as written: where the last timed event
    // is due, and the last absolute time, for packetdrill's checks.
    let mut script_time: Option<i64> = None;
    let mut last_absolute: Option<i64> = None;
    // packetdrill's parser.y `script`: options, one init command, the
    // events, one cleanup command.
    let mut init_seen = false;
    let mut cleanup_at: Option<usize> = None;
    for st in statements(text)? {
        let t = st.text.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(line) = cleanup_at {
            return Err(st.err(
                t,
                format!(
                    "the command without a time on line {line} ends the events; \
                     nothing may follow it"
                ),
            ));
        }
        if let Some(opt) = t.strip_prefix("--") {
            if script_time.is_some() || init_seen {
                return Err(st.err(
                    t,
                    "options (--NAME=VALUE) come before the first command and event",
                ));
            }
            let (name, value) = opt.split_once('=').unwrap_or((opt, ""));
            // lexer.l: --[a-zA-Z0-9_]+
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(st.err(t, format!("bad option {t:?}")));
            }
            let value = value.trim().trim_matches('"');
            if name == "tolerance_usecs" {
                match number(value, MAX_TOLERANCE_US as u64, "--tolerance_usecs") {
                    Num::Ok(_) => {}
                    Num::Symbol(s) | Num::Bad(s) => return Err(st.err(t, s)),
                }
            }
            events.push(Event {
                line: st.line,
                when: When::After(0),
                action: Action::Option {
                    name: name.to_string(),
                    value: value.to_string(),
                },
            });
            continue;
        }
        if t.starts_with('`') {
            let body = shell(&st, t)?;
            if script_time.is_none() {
                if init_seen {
                    return Err(st.err(
                        t,
                        "a second command without a time before the first event \
                         (packetdrill takes one)",
                    ));
                }
                init_seen = true;
            } else {
                cleanup_at = Some(st.line);
            }
            events.push(Event {
                line: st.line,
                when: When::After(0),
                action: Action::Shell(body),
            });
            continue;
        }
        let tok_end = t
            .find(|c: char| c.is_whitespace() || "<>`%(".contains(c))
            .unwrap_or(t.len());
        let tok = &t[..tok_end];
        if tok.is_empty() {
            return Err(st.err(t, "expected a time at the start of the event"));
        }
        let mut rest = t[tok_end..].trim_start();
        // lexer.l makes `...` a token of its own: a blocking call's end
        // time may stand apart from the start (`+0 ... 0.004 connect(`).
        let mut time = tok.to_string();
        let mut needs_end = tok.ends_with("...");
        if let Some(r) = rest.strip_prefix("...").filter(|_| !needs_end) {
            time.push_str("...");
            rest = r.trim_start();
            needs_end = true;
        }
        if needs_end {
            let e = rest
                .find(|c: char| c.is_whitespace() || "<>`%(".contains(c))
                .unwrap_or(rest.len());
            time.push_str(&rest[..e]);
            rest = rest[e..].trim_start();
        }
        let (when, ellipsis) = parse_when(&time).map_err(|m| st.err(tok, m))?;
        let rest = rest.trim();
        let (action, is_packet) = if rest.starts_with('`') {
            (Action::Shell(shell(&st, rest)?), false)
        } else if rest.starts_with("%{") {
            (Action::Python(python(&st, rest)?), false)
        } else if let Some(p) = rest.strip_prefix(['<', '>']) {
            let outbound = rest.starts_with('>');
            let p = p.trim();
            let first = p.split_whitespace().next().unwrap_or("");
            let head = p.split('<').next().unwrap_or("");
            let action = if p.starts_with(['[', '(']) {
                Action::Unsupported(format!("an IP-level field: {rest}"))
            } else if ["ipv4", "ipv6", "gre", "mpls", "udp", "icmp", "encap"].contains(&first) {
                Action::Unsupported(format!("a packet with {first}: {rest}"))
            } else if head.contains('>') {
                // opt_port_info: SRC>DST.
                Action::Unsupported(format!("explicit port numbers: {rest}"))
            } else {
                match parse_packet(&st, p, outbound) {
                    Ok(pk) if outbound => Action::Outbound(pk),
                    Ok(pk) => Action::Inbound(pk),
                    Err(PacketErr::Unsupported(what)) => Action::Unsupported(what),
                    Err(PacketErr::Bad(e)) => return Err(e),
                }
            };
            (action, true)
        } else if rest.is_empty() {
            return Err(st.err(tok, "a time without an event"));
        } else {
            (parse_syscall(&st, rest)?, false)
        };
        let outbound_packet = is_packet && rest.starts_with('>');
        // parser.y `event`: `*` and ranges only for outbound packets;
        // syscall_spec: `...` only for a system call.
        match when {
            When::Any if !outbound_packet => {
                return Err(st.err(tok, "event time * can only be used with outbound packets"))
            }
            When::Range { .. } if ellipsis && !matches!(action, Action::Syscall { .. }) => {
                return Err(st.err(tok, "an end time (...) only goes with a system call"))
            }
            When::Range { .. } if !ellipsis && !outbound_packet => {
                return Err(st.err(
                    tok,
                    "event time range can only be used with outbound packets",
                ))
            }
            _ => {}
        }
        // run.c get_next_event(): the first event is at time 0, and
        // absolute times do not go backward.
        let start = match when {
            When::At(t) | When::After(t) => t,
            When::Range { from, .. } => from,
            When::Any => 0,
        };
        let absolute = matches!(
            when,
            When::At(_)
                | When::Range {
                    relative: false,
                    ..
                }
        );
        let Some(now) = script_time else {
            if start != 0 {
                return Err(st.err(tok, "the first event should be at time 0"));
            }
            script_time = Some(0);
            last_absolute = absolute.then_some(0);
            events.push(Event {
                line: st.line,
                when,
                action,
            });
            continue;
        };
        if absolute {
            if let Some(prev) = last_absolute.filter(|&p| start < p) {
                return Err(st.err(
                    tok,
                    format!(
                        "time goes backward in script from {} s to {} s",
                        seconds(prev),
                        seconds(start)
                    ),
                ));
            }
            last_absolute = Some(start);
        }
        // When the engine must have been run to, at the latest.
        let due = match when {
            When::At(t) => t,
            When::After(d) => now + d,
            When::Range { to, relative, .. } => {
                if relative {
                    now + to
                } else {
                    to
                }
            }
            When::Any => now,
        };
        let gap = due - now;
        if gap > MAX_GAP_US {
            return Err(st.err(
                tok,
                format!(
                    "a gap of {} s after the previous event: the drill takes at most {} s, \
                     the time Linux retransmits before it gives up on a connection \
                     (tcp_retries2 = 15, tcp_model_timeout() in net/ipv4/tcp_timer.c)",
                    seconds(gap),
                    seconds(MAX_GAP_US)
                ),
            ));
        }
        let due = due.max(now);
        if due > MAX_TIME_US {
            return Err(st.err(
                tok,
                format!("script time beyond {} s", seconds(MAX_TIME_US)),
            ));
        }
        script_time = Some(due);
        events.push(Event {
            line: st.line,
            when,
            action,
        });
    }
    // A script of system calls alone is valid packetdrill (socket_err.pkt)
    // that the runner reports unsupported; one with nothing at all checks
    // nothing and must not pass.
    if events.is_empty() {
        return Err(ParseError {
            line: text.lines().count().max(1),
            column: None,
            message: "no events (no packet lines, no system calls): the script checks nothing"
                .into(),
        });
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_packets_options_and_blocks() {
        let s =
            "// a comment\n`../common/defaults.sh`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n\
                 +.1 < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n\
                 +0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>\n\
                 0.2~0.3 > . 1:1(0) ack 1001 win 257 <sack 2001:3001 4001:5001,TS val 1 ecr 2>\n\
                 +.01 %{\nassert tcpi_snd_cwnd == 7, tcpi_snd_cwnd\n}%\n\
                 * > P. 1:10001(10000) ack 1\n";
        let e = parse(s).unwrap();
        assert_eq!(e.len(), 7);
        assert_eq!(e[0].action, Action::Shell("../common/defaults.sh".into()));
        assert_eq!(e[1].when, When::At(0));
        assert!(
            matches!(&e[1].action, Action::Syscall { name, ret, .. } if name == "socket" && ret == "3")
        );
        assert_eq!(e[2].when, When::After(100_000));
        let Action::Inbound(p) = &e[2].action else {
            panic!()
        };
        assert!(p.syn());
        assert_eq!(p.options[0], TcpOption::Mss(1000));
        assert_eq!(p.options[5], TcpOption::WScale(7));
        let Action::Outbound(p) = &e[4].action else {
            panic!()
        };
        assert_eq!(
            e[4].when,
            When::Range {
                from: 200_000,
                to: 300_000,
                relative: false
            }
        );
        assert_eq!((p.ack, p.win), (Some(1001), Some(257)));
        assert_eq!(
            p.options[0],
            TcpOption::Sack(vec![(2001, 3001), (4001, 5001)])
        );
        assert_eq!(p.options[1], TcpOption::Timestamp { val: 1, ecr: 2 });
        assert_eq!(
            e[5].action,
            Action::Python(vec!["assert tcpi_snd_cwnd == 7, tcpi_snd_cwnd".into()])
        );
        assert_eq!(e[5].line, 7);
        assert_eq!(e[6].when, When::Any);
        let Action::Outbound(p) = &e[6].action else {
            panic!()
        };
        assert_eq!((p.start, p.end), (1, 10001));
    }

    const HEAD: &str = "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n";

    fn err(s: &str) -> ParseError {
        parse(&format!("{HEAD}{s}\n+0 < S 0:0(0) win 1000\n")).unwrap_err()
    }

    #[test]
    fn a_bad_range_names_its_line() {
        let e = parse(&format!("{HEAD}+0 < . 1:5(3) ack 1\n")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("inconsistent"), "{}", e.message);
    }

    #[test]
    fn times_are_packetdrill_decimals() {
        for (t, us) in [
            ("2", 2 * SEC),
            (".1", 100_000),
            ("0.0000005", 1),
            ("007.25", 7_250_000),
        ] {
            assert_eq!(seconds_to_us(t), Ok(us), "{t}");
        }
        for t in [
            "nan",
            "inf",
            "1e9",
            "-1",
            "1.",
            ".",
            "",
            "+1",
            "0x10",
            "1..2",
            "9999999999999",
        ] {
            assert!(seconds_to_us(t).is_err(), "{t}");
        }
        for t in [
            "+nan",
            "nan",
            "+-0.5",
            "1.0~0.5",
            "+.3~+.2",
            "+.3~.4",
            "1~+2",
            "+.2...0.1",
        ] {
            let e = err(&format!("{t} < . 1:1(0) ack 1"));
            assert_eq!((e.line, e.column), (2, Some(1)), "{t}: {}", e.message);
        }
    }

    #[test]
    fn gaps_are_capped_at_linux_give_up_time() {
        let ok = format!("{HEAD}+924.6 < S 0:0(0) win 1000\n");
        assert!(parse(&ok).is_ok());
        for gap in ["+924.600001", "924.7", "+1000000000"] {
            let e = parse(&format!("{HEAD}{gap} < S 0:0(0) win 1000\n")).unwrap_err();
            assert_eq!(e.line, 2, "{gap}");
            assert!(e.message.contains("924.6 s"), "{}", e.message);
        }
        // Gaps add up without limit but one at a time.
        let many = format!("{HEAD}{}", "+900 < S 0:0(0) win 1000\n".repeat(3));
        assert!(parse(&many).is_ok());
    }

    #[test]
    fn structure_follows_packetdrill() {
        let first = parse("+.1 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < S 0:0(0) win 1\n");
        assert!(first.unwrap_err().message.contains("time 0"));
        let back = parse(&format!("{HEAD}1 < S 0:0(0) win 1\n0.5 < . 1:1(0) ack 1\n"));
        assert!(back.unwrap_err().message.contains("backward"));
        let e = err("* write(4, ..., 10) = 10");
        assert!(e.message.contains('*'), "{}", e.message);
        let e = err("+0~+1 write(4, ..., 10) = 10");
        assert!(e.message.contains("range"), "{}", e.message);
        let late = parse(&format!(
            "{HEAD}+0 < S 0:0(0) win 1\n--tolerance_usecs=10\n"
        ));
        assert!(late.unwrap_err().message.contains("options"));
        let e = parse("--tolerance_usecs=abc\n0 < S 0:0(0) win 1\n").unwrap_err();
        assert_eq!(e.line, 1);
        // A blocking call's end time, and a timed multi-line command.
        let ok = format!(
            "{HEAD}+0...0.010 accept(3, ..., ...) = 4\n+.001 `sysctl -q a=1\n  sysctl -q b=2`\n+0 < S 0:0(0) win 1\n"
        );
        let e = parse(&ok).unwrap();
        assert_eq!(
            e[2].action,
            Action::Shell("sysctl -q a=1\n  sysctl -q b=2".into())
        );
        assert_eq!(e[3].line, 5);
        for t in ["+0 ... 0.004", "+0... 0.004", "+0 ...0.004"] {
            let e = parse(&format!(
                "{HEAD}{t} connect(3, ..., ...) = 0\n+0 < S 0:0(0) win 1\n"
            ));
            let want = When::Range {
                from: 0,
                to: 4_000,
                relative: true,
            };
            assert_eq!(e.unwrap()[1].when, want, "{t}");
        }
    }

    #[test]
    fn flags_options_and_fields_are_checked() {
        for (s, want) in [
            ("+0 < Q. 1:1(0) ack 1", "'Q'"),
            ("+0 < SE1 0:0(0) win 1", "conflicting"),
            ("+0 < S 0:0(0) win 65536", "win"),
            ("+0 < . 1:1(0) ack 4294967296", "ack"),
            ("+0 < . 1:70001(70000) ack 1", "payload"),
            ("+0 < . 1:1(0) ack 1 foo 3", "\"foo\""),
            ("+0 < . 1:1(0) win 3 ack 1", "\"ack\""),
            ("+0 < S 0:0(0) <bogus 3>", "bogus"),
            ("+0 < S 0:0(0) <mss>", "mss"),
            ("+0 < S 0:0(0) <mss 70000>", "mss"),
            ("+0 < S 0:0(0) <wscale 300>", "wscale"),
            ("+0 < S 0:0(0) <TS 1 2>", "TS val"),
            ("+0 < S 0:0(0) <mss 1000,>", "empty"),
            ("+0 < S 0:0(0) <...>", "outbound"),
            (
                "+0 < . 1:1(0) ack 1 <sack 1:2 3:4 5:6 7:8 9:10>",
                "too long",
            ),
            ("+0 < S 0:0(0) <mss 1000", "'>'"),
        ] {
            let e = err(s);
            assert_eq!(e.line, 2, "{s}");
            assert!(e.message.contains(want), "{s}: {}", e.message);
        }
        // Valid packetdrill the engine does not model.
        for s in [
            "+0 < S 0:0(0) <mss MSS>",
            "+0 < icmp unreachable frag_needed mtu 800",
            "+0 < [ect0] S 0:0(0) win 1",
            "+0 < 8080>80 S 0:0(0) win 1",
        ] {
            let e = parse(&format!("{HEAD}{s}\n")).unwrap();
            assert!(matches!(e[1].action, Action::Unsupported(_)), "{s}");
        }
        let e = parse(&format!("{HEAD}+0 < SEW 0:0(0) win 1 <FO abcd,md5 00ff>\n")).unwrap();
        let Action::Inbound(p) = &e[1].action else {
            panic!()
        };
        assert_eq!(p.unmodelled_flags().as_deref(), Some("EW"));
        assert!(matches!(&p.options[0], TcpOption::Other(o) if o == "FO abcd"));
    }

    #[test]
    fn hostile_text_is_an_error_with_a_position() {
        let e = parse_bytes(b"/* caf\xc3\xa9 */\n").unwrap_err();
        assert!(e.message.contains("no events"), "{}", e.message);
        let e = parse("0 a) = (\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, Some(4)));
        let e = parse(&format!("{HEAD}+0 < S 0:0(0) win 1 é\n")).unwrap_err();
        assert_eq!((e.line, e.column), (2, Some(21)), "{}", e.message);
        assert!(e.message.contains("U+00E9"));
        let e = parse_bytes(b"0 socket() = 3\n+0 <\xff\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, Some(5)));
        let e = parse(&format!("{HEAD}/* open\n")).unwrap_err();
        assert_eq!((e.line, e.column), (2, Some(1)));
        let e = parse(&format!("{HEAD}+0 write(4, \"x)\n")).unwrap_err();
        assert!(e.message.contains("never closed"), "{}", e.message);
        let e = parse(&format!("{HEAD}+0 write(4, ..., 10\n+0 < S 0:0(0) win 1\n")).unwrap_err();
        assert_eq!(e.line, 2);
        // Non-ASCII where it is text: comments, strings, commands, code.
        let ok = format!(
            "{HEAD}// é\n+0 write(4, \"é\", 2) = 2\n+0 `echo é`\n+0 %{{ x = 'é' }}%\n+0 < S 0:0(0) win 1 /* é */\n"
        );
        assert!(parse(&ok).is_ok());
        // Columns after a comment on the same line.
        let e = parse(&format!("{HEAD}+0 /* c */ < Q 0:0(0)\n")).unwrap_err();
        assert_eq!((e.line, e.column), (2, Some(14)), "{}", e.message);
        assert!(parse("").unwrap_err().message.contains("no events"));
    }
}
