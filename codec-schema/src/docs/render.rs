//! The page model rendered as Markdown (GitHub tables) and as MediaWiki
//! (`{| class="wikitable"` tables).

use super::page::{Block, Rich, Span};

pub fn markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                out.push_str(&"#".repeat(usize::from(*level)));
                out.push(' ');
                out.push_str(&md_inline(text, false));
                out.push_str("\n\n");
            }
            Block::Para(text) => {
                out.push_str(&md_inline(text, false));
                out.push_str("\n\n");
            }
            Block::List(items) => {
                for i in items {
                    out.push_str("- ");
                    out.push_str(&md_inline(i, false));
                    out.push('\n');
                }
                out.push('\n');
            }
            Block::Table { header, rows } => {
                out.push('|');
                for h in header {
                    out.push(' ');
                    out.push_str(h);
                    out.push_str(" |");
                }
                out.push_str("\n|");
                for _ in header {
                    out.push_str("---|");
                }
                out.push('\n');
                for row in rows {
                    out.push('|');
                    for cell in row {
                        out.push(' ');
                        out.push_str(&md_inline(cell, true));
                        out.push_str(" |");
                    }
                    out.push('\n');
                }
                out.push('\n');
            }
            Block::Image { file, alt } => {
                out.push_str(&format!("![{alt}]({file})\n\n"));
            }
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn md_inline(r: &Rich, in_table: bool) -> String {
    let mut s = String::new();
    for span in r {
        let piece = match span {
            Span::Text(x) => x.clone(),
            Span::Code(x) => {
                if x.contains('`') {
                    format!("`` {x} ``")
                } else {
                    format!("`{x}`")
                }
            }
            Span::Strong(x) => format!("**{x}**"),
        };
        s.push_str(&piece);
    }
    let s = s.replace('\n', " ");
    if in_table {
        s.replace('|', "\\|")
    } else {
        s
    }
}

pub fn mediawiki(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                let eq = "=".repeat(usize::from(*level));
                out.push_str(&format!("{eq} {} {eq}\n\n", wiki_inline(text)));
            }
            Block::Para(text) => {
                out.push_str(&wiki_inline(text));
                out.push_str("\n\n");
            }
            Block::List(items) => {
                for i in items {
                    out.push_str("* ");
                    out.push_str(&wiki_inline(i));
                    out.push('\n');
                }
                out.push('\n');
            }
            Block::Table { header, rows } => {
                out.push_str("{| class=\"wikitable\"\n! ");
                out.push_str(&header.join(" !! "));
                out.push('\n');
                for row in rows {
                    out.push_str("|-\n| ");
                    let cells: Vec<String> = row.iter().map(wiki_inline).collect();
                    out.push_str(&cells.join(" || "));
                    out.push('\n');
                }
                out.push_str("|}\n\n");
            }
            Block::Image { file, alt } => {
                out.push_str(&format!("[[File:{file}|{}]]\n\n", wiki_escape(alt)));
            }
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Escapes what MediaWiki would read as markup (links, templates, table
/// separators, bold and italics, HTML).
fn wiki_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev = '\0';
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '{' => out.push_str("&#123;"),
            '}' => out.push_str("&#125;"),
            '\'' if prev == '\'' => out.push_str("&#39;"),
            '\n' => out.push(' '),
            c => out.push(c),
        }
        prev = ch;
    }
    out
}

fn wiki_inline(r: &Rich) -> String {
    let mut s = String::new();
    for span in r {
        match span {
            Span::Text(x) => s.push_str(&wiki_escape(x)),
            Span::Code(x) => {
                s.push_str("<code>");
                s.push_str(&wiki_escape(x));
                s.push_str("</code>");
            }
            Span::Strong(x) => {
                s.push_str("'''");
                s.push_str(&wiki_escape(x));
                s.push_str("'''");
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::page::rich;

    #[test]
    fn escaping() {
        let cell = rich("a | b with `x|y` and [[link]] {{tpl}} ''it''");
        assert_eq!(
            md_inline(&cell, true),
            "a \\| b with `x\\|y` and [[link]] {{tpl}} ''it''"
        );
        assert_eq!(
            wiki_inline(&cell),
            "a &#124; b with <code>x&#124;y</code> and &#91;&#91;link&#93;&#93; &#123;&#123;tpl&#125;&#125; '&#39;it'&#39;"
        );
    }
}
