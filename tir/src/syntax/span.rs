//! Source positions: the [`Span`] carried by every token and syntax-tree node.

/// A half-open byte range of the source text plus the line and column of its start.
///
/// `line` and `column` are 1-based; `column` counts Unicode scalar values (characters), not bytes,
/// so that a caret printed under the line lands on the right character.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset of the first character.
    pub offset: usize,
    /// Byte offset one past the last character.
    pub end: usize,
    /// 1-based line of `offset`.
    pub line: u32,
    /// 1-based column (in characters) of `offset`.
    pub column: u32,
}

impl Span {
    /// The span from the start of `self` to the end of `other` (which must not start before `self`).
    pub fn to(self, other: Span) -> Span {
        Span {
            end: other.end.max(self.end),
            ..self
        }
    }

    /// The source text covered by the span, or `""` if it does not fit `src`.
    pub fn text(self, src: &str) -> &str {
        src.get(self.offset..self.end).unwrap_or("")
    }
}
