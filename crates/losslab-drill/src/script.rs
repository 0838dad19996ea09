//! The packetdrill language, the subset about one TCP sender (google/
//! packetdrill's README and gtests/net/tcp scripts): timed system calls,
//! inbound (`<`) and expected outbound (`>`) packets, `%{ assert }%`
//! blocks on tcp_info, and backquoted shell lines (sysctls).

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
    /// Flags as written: S, S., ., P., F., R, ...
    pub flags: String,
    /// Relative sequence range start:end and payload length.
    pub start: u64,
    pub end: u64,
    pub ack: Option<u64>,
    pub win: Option<u64>,
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
    /// marks, IP fields).
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
    pub line: usize,
    pub message: String,
}

/// Removes `//` and `/* */` comments, keeping line numbers.
fn strip_comments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for raw in text.lines() {
        let mut line = String::new();
        let b = raw.as_bytes();
        let mut i = 0;
        let mut in_quote = false;
        while i < b.len() {
            if in_block {
                if raw[i..].starts_with("*/") {
                    in_block = false;
                    i += 2;
                } else {
                    i += 1;
                }
                continue;
            }
            if b[i] == b'"' {
                in_quote = !in_quote;
            }
            if !in_quote && raw[i..].starts_with("//") {
                break;
            }
            if !in_quote && raw[i..].starts_with("/*") {
                in_block = true;
                i += 2;
                continue;
            }
            line.push(b[i] as char);
            i += 1;
        }
        out.push(line);
    }
    out
}

fn seconds_to_us(s: &str, line: usize) -> Result<i64, ParseError> {
    let v: f64 = s.parse().map_err(|_| ParseError {
        line,
        message: format!("bad time {s:?}"),
    })?;
    Ok((v * 1e6).round() as i64)
}

fn parse_when(tok: &str, line: usize) -> Result<When, ParseError> {
    if tok == "*" {
        return Ok(When::Any);
    }
    let (relative, body) = match tok.strip_prefix('+') {
        Some(b) => (true, b),
        None => (false, tok),
    };
    // `+0...0.010`: a blocking call that returns within the range.
    if let Some((a, b)) = body.split_once("...") {
        return Ok(When::Range {
            from: seconds_to_us(a, line)?,
            to: seconds_to_us(b, line)?,
            relative,
        });
    }
    if let Some((a, b)) = body.split_once('~') {
        let b = b.strip_prefix('+').unwrap_or(b);
        return Ok(When::Range {
            from: seconds_to_us(a, line)?,
            to: seconds_to_us(b, line)?,
            relative,
        });
    }
    let t = seconds_to_us(body, line)?;
    Ok(if relative {
        When::After(t)
    } else {
        When::At(t)
    })
}

fn parse_options(s: &str, line: usize) -> Result<Vec<TcpOption>, ParseError> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let p = part.trim();
        if p.is_empty() {
            continue;
        }
        let words: Vec<&str> = p.split_whitespace().collect();
        let bad = || ParseError {
            line,
            message: format!("bad TCP option {p:?}"),
        };
        let opt = match words[0] {
            "mss" => TcpOption::Mss(words.get(1).and_then(|w| w.parse().ok()).ok_or_else(bad)?),
            "sackOK" => TcpOption::SackOk,
            "nop" => TcpOption::Nop,
            "wscale" => {
                TcpOption::WScale(words.get(1).and_then(|w| w.parse().ok()).ok_or_else(bad)?)
            }
            "TS" => {
                // TS val X ecr Y
                let val = words.get(2).and_then(|w| w.parse().ok()).ok_or_else(bad)?;
                let ecr = words.get(4).and_then(|w| w.parse().ok()).ok_or_else(bad)?;
                TcpOption::Timestamp { val, ecr }
            }
            "sack" => {
                let mut blocks = Vec::new();
                for w in &words[1..] {
                    let (a, b) = w.split_once(':').ok_or_else(bad)?;
                    blocks.push((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?));
                }
                TcpOption::Sack(blocks)
            }
            _ => TcpOption::Other(p.to_string()),
        };
        out.push(opt);
    }
    Ok(out)
}

fn parse_packet(rest: &str, line: usize) -> Result<Packet, ParseError> {
    let bad = |m: &str| ParseError {
        line,
        message: format!("{m}: {rest:?}"),
    };
    let (head, options) = match rest.find('<') {
        Some(i) => {
            let close = rest.rfind('>').ok_or_else(|| bad("unclosed option list"))?;
            (&rest[..i], parse_options(&rest[i + 1..close], line)?)
        }
        None => (rest, Vec::new()),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let flags = words.first().ok_or_else(|| bad("no flags"))?.to_string();
    let range = words.get(1).ok_or_else(|| bad("no sequence range"))?;
    let (se, len) = range.split_once('(').ok_or_else(|| bad("no (length)"))?;
    let (s, e) = se.split_once(':').ok_or_else(|| bad("no start:end"))?;
    let start: u64 = s.parse().map_err(|_| bad("bad start"))?;
    let end: u64 = e.parse().map_err(|_| bad("bad end"))?;
    let len: u64 = len
        .trim_end_matches(')')
        .parse()
        .map_err(|_| bad("bad length"))?;
    if end.checked_sub(start) != Some(len) {
        return Err(bad("length does not match the range"));
    }
    let mut ack = None;
    let mut win = None;
    let mut i = 2;
    while i < words.len() {
        match words[i] {
            "ack" => {
                ack = words.get(i + 1).and_then(|w| w.parse().ok());
                i += 2;
            }
            "win" => {
                win = words.get(i + 1).and_then(|w| w.parse().ok());
                i += 2;
            }
            _ => i += 1,
        }
    }
    Ok(Packet {
        flags,
        start,
        end,
        ack,
        win,
        options,
    })
}

fn parse_syscall(rest: &str, line: usize) -> Result<Action, ParseError> {
    let open = rest.find('(').ok_or(ParseError {
        line,
        message: format!("not a packet, system call or block: {rest:?}"),
    })?;
    let close = rest.rfind(')').ok_or(ParseError {
        line,
        message: format!("unclosed call: {rest:?}"),
    })?;
    let name = rest[..open].trim().to_string();
    let mut args = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in rest[open + 1..close].chars() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        args.push(cur.trim().to_string());
    }
    let ret = rest[close + 1..]
        .trim()
        .trim_start_matches('=')
        .trim()
        .to_string();
    Ok(Action::Syscall { name, args, ret })
}

/// Parses a whole script.
pub fn parse(text: &str) -> Result<Vec<Event>, ParseError> {
    let lines = strip_comments(text);
    let mut events = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let l = lines[i].trim();
        i += 1;
        if l.is_empty() {
            continue;
        }
        if let Some(opt) = l.strip_prefix("--") {
            let (name, value) = opt.split_once('=').unwrap_or((opt, ""));
            events.push(Event {
                line: line_no,
                when: When::After(0),
                action: Action::Option {
                    name: name.to_string(),
                    value: value.to_string(),
                },
            });
            continue;
        }
        if let Some(first) = l.strip_prefix('`') {
            // Shell lines run until the closing backquote.
            let mut body = first.to_string();
            while !body.contains('`') && i < lines.len() {
                body.push('\n');
                body.push_str(lines[i].trim());
                i += 1;
            }
            let body = body.trim_end_matches('`').replace("\\\n", " ");
            events.push(Event {
                line: line_no,
                when: When::After(0),
                action: Action::Shell(body.to_string()),
            });
            continue;
        }
        let (tok, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        let when = parse_when(tok, line_no)?;
        let rest = rest.trim();
        let action = if let Some(cmd) = rest.strip_prefix('`') {
            Action::Shell(cmd.trim_end_matches('`').to_string())
        } else if rest.starts_with("< [") || rest.starts_with("> [") {
            Action::Unsupported(format!("an IP-level field: {rest}"))
        } else if let Some(p) = rest.strip_prefix('<') {
            Action::Inbound(parse_packet(p.trim(), line_no)?)
        } else if let Some(p) = rest.strip_prefix('>') {
            Action::Outbound(parse_packet(p.trim(), line_no)?)
        } else if let Some(p) = rest.strip_prefix("%{") {
            let mut body = Vec::new();
            let mut first = p.to_string();
            loop {
                if let Some(j) = first.find("}%") {
                    let before = first[..j].trim().to_string();
                    if !before.is_empty() {
                        body.push(before);
                    }
                    break;
                }
                if !first.trim().is_empty() {
                    body.push(first.trim().to_string());
                }
                if i >= lines.len() {
                    return Err(ParseError {
                        line: line_no,
                        message: "unclosed %{ block".into(),
                    });
                }
                first = lines[i].clone();
                i += 1;
            }
            Action::Python(body)
        } else {
            // A system call may span lines until its parentheses close.
            let mut call = rest.to_string();
            while call.matches('(').count() > call.matches(')').count() && i < lines.len() {
                call.push(' ');
                call.push_str(lines[i].trim());
                i += 1;
            }
            parse_syscall(&call, line_no)?
        };
        events.push(Event {
            line: line_no,
            when,
            action,
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
                 0.2~0.3 < . 1:1(0) ack 1001 win 257 <sack 2001:3001 4001:5001,TS val 1 ecr 2>\n\
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
        let Action::Inbound(p) = &e[4].action else {
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

    #[test]
    fn a_bad_range_names_its_line() {
        let e = parse("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < . 1:5(3) ack 1\n")
            .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("length"), "{}", e.message);
    }
}
