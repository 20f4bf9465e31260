//! The textual mapping of jitson's operator names to DataFusion's, applied
//! to the actual output of a query before it is compared.
//!
//! jitson's scan is DataFusion's `DataSourceExec` over `JitsonSource`, whose
//! plan line is DataFusion's JSON scan's with `, reader=jitson` after
//! `file_type=json` (in the tree format, a `reader: jitson` line in the
//! node's box); its sink is `JitsonSink(…)` where DataFusion writes
//! `JsonSink(…)` (in the tree format, `format: json (jitson)` where
//! DataFusion writes `format: json`). The rules, and nothing else:
//!
//! 1. in a value, `, reader=jitson` is removed;
//! 2. in a value, `JitsonSink(` becomes `JsonSink(`;
//! 3. a tree-format row whose box line holds `reader: jitson` is removed, and
//!    the following rows of the same plan are numbered one less;
//! 4. a tree-format row whose box line holds `format: json (jitson)` holds
//!    `format: json` instead, centred in the same box as DataFusion centres.
//!
//! A record that passes only after a rule applied is counted as "mapped",
//! apart from those that pass as they are.

/// Rules 1 and 2: `(jitson's text, DataFusion's text)`, replaced everywhere
/// in a value.
pub const REPLACEMENTS: &[(&str, &str)] = &[(", reader=jitson", ""), ("JitsonSink(", "JsonSink(")];

/// Rule 3: the tree-format box line removed.
const TREE_READER: &str = "reader: jitson";

/// Rule 4: the tree-format box line of jitson's sink, and DataFusion's.
const TREE_SINK: (&str, &str) = ("format: json (jitson)", "format: json");

/// `value` with rules 1 and 2 applied, or `None` when neither applies.
fn replace(value: &str) -> Option<String> {
    if !REPLACEMENTS.iter().any(|(from, _)| value.contains(from)) {
        return None;
    }
    let mut out = value.to_string();
    for (from, to) in REPLACEMENTS {
        out = out.replace(from, to);
    }
    Some(out)
}

/// A tree-format row: DataFusion's sqllogictest engine writes each line of
/// a multi-line plan as a row of one value, `NN)` then the line's leading
/// spaces as `-`, then the line. Returns (number, dashes, box inner text)
/// when the line is a box line `│…│`.
fn tree_row(value: &str) -> Option<(usize, &str, &str)> {
    let (number, rest) = value.split_once(')')?;
    if number.len() < 2 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let content = rest.trim_start_matches('-');
    let dashes = &rest[..rest.len() - content.len()];
    let inner = content.strip_prefix('│')?.strip_suffix('│')?;
    Some((number.parse().ok()?, dashes, inner))
}

/// `text` centred in `width` columns as DataFusion's tree renderer centres
/// (the odd column on the left).
fn centre(text: &str, width: usize) -> String {
    let len = text.chars().count();
    let pad = width.saturating_sub(len);
    let left = pad.div_ceil(2);
    format!("{}{text}{}", " ".repeat(left), " ".repeat(pad - left))
}

/// Applies every rule to `rows`; true when one applied.
pub fn apply(rows: &mut Vec<Vec<String>>) -> bool {
    let mut applied = false;
    for value in rows.iter_mut().flatten() {
        if let Some(mapped) = replace(value) {
            *value = mapped;
            applied = true;
        }
        if let Some((number, dashes, inner)) = tree_row(value)
            && inner.trim() == TREE_SINK.0
        {
            let width = inner.chars().count();
            *value = format!("{number:02}){dashes}│{}│", centre(TREE_SINK.1, width));
            applied = true;
        }
    }
    // Rule 3, with the renumbering of the rows after a removed one.
    let mut out: Vec<Vec<String>> = Vec::with_capacity(rows.len());
    let mut removed = 0;
    for row in rows.drain(..) {
        let numbered = match row.as_slice() {
            [value] => tree_row(value).map(|(n, d, i)| (n, d.to_string(), i.to_string())),
            _ => None,
        };
        let is_plan_line = row.len() == 1
            && row[0]
                .split_once(')')
                .is_some_and(|(n, _)| n.len() >= 2 && n.bytes().all(|b| b.is_ascii_digit()));
        if !is_plan_line {
            removed = 0;
            out.push(row);
            continue;
        }
        if let Some((_, _, inner)) = &numbered
            && inner.trim() == TREE_READER
        {
            removed += 1;
            applied = true;
            continue;
        }
        if removed > 0 {
            let (number, rest) = row[0].split_once(')').expect("a plan line");
            let number: usize = number.parse().expect("digits");
            out.push(vec![format!("{:02}){rest}", number - removed)]);
        } else {
            out.push(row);
        }
    }
    *rows = out;
    applied
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(lines: &[&str]) -> Vec<Vec<String>> {
        lines.iter().map(|l| vec![l.to_string()]).collect()
    }

    #[test]
    fn maps_the_scan_and_the_sink() {
        let mut r = vec![vec![
            "physical_plan".to_string(),
            "DataSourceExec: file_groups={1 group: [[a.json]]}, file_type=json, reader=jitson"
                .to_string(),
        ]];
        assert!(apply(&mut r));
        assert_eq!(
            r[0][1],
            "DataSourceExec: file_groups={1 group: [[a.json]]}, file_type=json"
        );
        let mut r = rows(&["01)DataSinkExec: sink=JitsonSink(file_groups=[])"]);
        assert!(apply(&mut r));
        assert_eq!(r, rows(&["01)DataSinkExec: sink=JsonSink(file_groups=[])"]));
        let mut r = rows(&["01)CsvSink(file_groups=[])"]);
        assert!(!apply(&mut r));
    }

    #[test]
    fn maps_the_tree_format() {
        let mut r = rows(&[
            "physical_plan",
            "01)┌───────────────────────────┐",
            "02)│   format: json (jitson)   │",
            "03)│          files: 1         │",
            "04)│        format: json       │",
            "05)│       reader: jitson      │",
            "06)└───────────────────────────┘",
            "07)-----│       reader: jitson      │",
            "08)-----└───────────────────────────┘",
            "logical_plan",
            "01)x",
        ]);
        assert!(apply(&mut r));
        assert_eq!(
            r,
            rows(&[
                "physical_plan",
                "01)┌───────────────────────────┐",
                "02)│        format: json       │",
                "03)│          files: 1         │",
                "04)│        format: json       │",
                "05)└───────────────────────────┘",
                "06)-----└───────────────────────────┘",
                "logical_plan",
                "01)x",
            ])
        );
    }
}
