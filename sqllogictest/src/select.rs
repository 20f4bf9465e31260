//! Which records of a file run: all of `json.slt`, and the JSON parts of the
//! others.
//!
//! A record of a partly run file runs when
//!
//! 1. its SQL mentions `json` (any case): JSON tables, `STORED AS JSON`, JSON
//!    files and directories, the `JsonOptions` error;
//! 2. its SQL names a table that a record run before created and whose
//!    creation mentions `json` (explain_tree.slt's `table4`);
//! 3. it is a `SET` or `RESET` (the session settings the whole file runs
//!    under);
//! 4. it is one of the file's setup records listed in [`FILES`] (by the line
//!    of its `statement`/`query` header): the tables the JSON records read;
//! 5. it drops a table that a record run before created.
//!
//! Every other record (Parquet, CSV, Arrow and Avro tables, other SQL) is
//! counted as "not JSON" and not run.

use std::collections::HashSet;

/// Which records of a file run.
pub enum Part {
    /// Every record.
    All,
    /// The JSON records, and the setup records at these lines.
    Json(&'static [u32]),
}

/// The files run, in this order.
pub const FILES: &[(&str, Part)] = &[
    ("json.slt", Part::All),
    ("repartition_scan.slt", Part::Json(&[])),
    // `source_table`, which the JSON COPYs write.
    ("copy.slt", Part::Json(&[19])),
    ("insert_to_external.slt", Part::Json(&[])),
    // `src_table_1`, `src_table_2`, which the JSON COPYs write.
    ("dynamic_file.slt", Part::Json(&[29, 41])),
    // Beyond issue 21's list, the two other files with JSON records.
    ("ddl.slt", Part::Json(&[])),
    // The tree format, and the tables table4.json is copied from: table1's
    // CSV file and table, and (between them in the file) table2 and table3.
    ("explain_tree.slt", Part::Json(&[28, 34, 45, 51, 58])),
];

/// The selection state of one file.
pub struct Selection {
    all: bool,
    setup: &'static [u32],
    /// Tables created by records that ran.
    created: HashSet<String>,
    /// Tables created by records that ran and mention `json`.
    json_tables: HashSet<String>,
}

impl Selection {
    pub fn new(part: &Part) -> Self {
        let (all, setup) = match part {
            Part::All => (true, &[][..]),
            Part::Json(setup) => (false, *setup),
        };
        Selection {
            all,
            setup,
            created: HashSet::new(),
            json_tables: HashSet::new(),
        }
    }

    /// Whether the record at `line` with `sql` runs.
    pub fn runs(&mut self, line: u32, sql: &str) -> bool {
        let lower = sql.to_ascii_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .filter(|w| !w.is_empty())
            .collect();
        let json = lower.contains("json");
        let selected = self.all
            || json
            || words.iter().any(|w| self.json_tables.contains(*w))
            || matches!(words.first(), Some(&"set") | Some(&"reset"))
            || self.setup.contains(&line)
            || dropped_table(&words).is_some_and(|t| self.created.contains(t));
        if selected && let Some(table) = created_table(&words) {
            self.created.insert(table.to_string());
            if json {
                self.json_tables.insert(table.to_string());
            }
        }
        selected
    }
}

/// The table a `CREATE [OR REPLACE] [UNBOUNDED] [EXTERNAL] TABLE [IF NOT
/// EXISTS] name` creates.
fn created_table<'a>(words: &[&'a str]) -> Option<&'a str> {
    let mut rest = match words {
        ["create", rest @ ..] => rest,
        _ => return None,
    };
    for word in ["or", "replace", "unbounded", "external"] {
        if rest.first() == Some(&word) {
            rest = &rest[1..];
        }
    }
    let ["table", r @ ..] = rest else { return None };
    rest = r;
    if let ["if", "not", "exists", r @ ..] = rest {
        rest = r;
    }
    rest.first().copied()
}

/// The table a `DROP TABLE [IF EXISTS] name` drops.
fn dropped_table<'a>(words: &[&'a str]) -> Option<&'a str> {
    match words {
        ["drop", "table", "if", "exists", name, ..] | ["drop", "table", name, ..] => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_json_settings_setup_and_their_drops() {
        let mut s = Selection::new(&Part::Json(&[5]));
        assert!(s.runs(1, "set datafusion.execution.target_partitions = 4;"));
        assert!(s.runs(2, "RESET datafusion.optimizer.repartition_file_min_size;"));
        assert!(!s.runs(3, "create table other(col1 integer) as values (1)"));
        assert!(!s.runs(4, "CREATE EXTERNAL TABLE p STORED AS PARQUET LOCATION 'x/'"));
        assert!(s.runs(5, "create table source_table(col1 integer) as values (1)"));
        assert!(s.runs(6, "CREATE EXTERNAL TABLE t4 STORED AS json LOCATION 'x/'"));
        assert!(s.runs(7, "select * from \"json_table\""));
        assert!(s.runs(8, "explain select a from t4 where b != 'foo'"));
        assert!(!s.runs(9, "explain select a from t5"));
        assert!(!s.runs(10, "DROP TABLE p;"));
        assert!(!s.runs(11, "drop table other"));
        assert!(s.runs(12, "DROP TABLE t4;"));
        assert!(s.runs(13, "drop table source_table"));
        assert!(!s.runs(14, "select * from parquet_table"));
        assert!(Selection::new(&Part::All).runs(1, "select * from parquet_table"));
    }
}
