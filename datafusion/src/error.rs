//! Scan errors in file positions.

use std::fmt;

use jitson_arrow::RecordError;

/// A record that failed to decode, placed in its file: returned inside
/// `DataFusionError::External`, so a caller may downcast to it.
///
/// Printed as `path/to/file.json: line 7, column 12 (byte 731) at $.req.status
/// (column `req.status`: Int32): invalid type: string "x", expected i32`.
#[derive(Clone, PartialEq, Eq)]
pub struct ScanError {
    /// The file's path in its object store.
    pub file: String,
    /// The record's error; `line` and `byte` are the file's (see
    /// [`relative_to`](Self::relative_to)), and `record` counts records of the
    /// range when [`ranged`](Self::ranged) is set.
    pub record: RecordError,
    /// The file was scanned in byte ranges (so `record.record` counts from the
    /// range's first record, not the file's).
    pub ranged: bool,
    /// `Some(offset)` when the lines before a range could not be counted: then
    /// `line` and `byte` count from the range's first line, at file `offset`.
    pub relative_to: Option<u64>,
    /// The file is compressed: `byte` is an offset in its decompressed text.
    pub decompressed: bool,
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.record;
        write!(f, "{}: ", self.file)?;
        if let Some(offset) = self.relative_to {
            write!(f, "in the range from byte {offset}, ")?;
        }
        write!(f, "line {}, column {} (", r.line, r.column)?;
        if self.decompressed {
            write!(f, "decompressed ")?;
        }
        write!(f, "byte {}", r.byte)?;
        if !self.ranged {
            write!(f, ", record {}", r.record)?;
        }
        write!(f, ") at {}", r.path)?;
        if let (Some(name), Some(t)) = (&r.column_name, &r.data_type) {
            write!(f, " (column `{name}`: {t})")?;
        }
        write!(f, ": {}", r.message)
    }
}

/// The `Display` text: errors that cross a process boundary are often printed
/// with `{:?}` (Ballista formats a failed task's error so), and the text says
/// everything the fields do.
impl fmt::Debug for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ScanError({self})")
    }
}

impl std::error::Error for ScanError {}
