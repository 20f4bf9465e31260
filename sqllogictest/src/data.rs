//! The data files the selected records read, written by us.
//!
//! DataFusion's .slt files name files of DataFusion's source tree
//! (`../core/tests/data/…`, relative to `datafusion/sqllogictest/`), which its
//! crates.io packages do not ship. These are small equivalents with the rows
//! the records expect; everything else the records read they write themselves
//! (`COPY … TO 'test_files/scratch/…'`).

use std::fs;
use std::io;
use std::path::Path;

/// `2.json`: twelve records of four columns; json.slt and dynamic_file.slt
/// read `a` (integers, one past `i32`) and `b` (floats).
const TWO: &str = r#"{"a":1,"b":2.0,"c":false,"d":"4"}
{"a":-10,"b":-3.5,"c":true,"d":"4"}
{"a":2,"b":0.6,"c":false,"d":"text"}
{"a":1,"b":2.0,"c":false,"d":"4"}
{"a":7,"b":-3.5,"c":true,"d":"4"}
{"a":1,"b":0.6,"c":false,"d":"text"}
{"a":1,"b":2.0,"c":false,"d":"4"}
{"a":5,"b":-3.5,"c":true,"d":"4"}
{"a":1,"b":0.6,"c":false,"d":"text"}
{"a":1,"b":2.0,"c":false,"d":"4"}
{"a":1,"b":-3.5,"c":true,"d":"4"}
{"a":100000000000000,"b":0.6,"c":false,"d":"text"}
"#;

/// `3.json` (table `single_nan`): one record whose only value is null, so
/// that schema inference gives `mycol` the Null type.
const THREE: &str = "{\"mycol\":null}\n";

/// `json_array.json`: a JSON array of three objects, read with
/// `format.newline_delimited = false`, and refused as NDJSON.
const ARRAY: &str = r#"[
  {"a": 1, "b": "hello"},
  {"a": 2, "b": "world"},
  {"a": 3, "b": "test"}
]
"#;

/// `partitioned_table_json/part=N/data.json`.
const PART_1: &str = "{\"id\": 1, \"value\": \"foo\"}\n{\"id\": 2, \"value\": \"bar\"}\n";
const PART_2: &str = "{\"id\": 3, \"value\": \"baz\"}\n{\"id\": 4, \"value\": \"qux\"}\n";

/// Lays out `root` as DataFusion's checkout is laid out for its sqllogictest
/// runner: the data under `datafusion/core/tests/data/`, and the runner's
/// working directory `datafusion/sqllogictest/` (returned), where the records'
/// scratch files go (`test_files/scratch/<file stem>/`).
pub fn write(root: &Path) -> io::Result<std::path::PathBuf> {
    let data = root.join("datafusion/core/tests/data");
    fs::create_dir_all(data.join("partitioned_table_json/part=1"))?;
    fs::create_dir_all(data.join("partitioned_table_json/part=2"))?;
    fs::write(data.join("2.json"), TWO)?;
    fs::write(data.join("3.json"), THREE)?;
    fs::write(data.join("json_array.json"), ARRAY)?;
    fs::write(data.join("partitioned_table_json/part=1/data.json"), PART_1)?;
    fs::write(data.join("partitioned_table_json/part=2/data.json"), PART_2)?;
    let cwd = root.join("datafusion/sqllogictest");
    fs::create_dir_all(cwd.join("test_files/scratch"))?;
    Ok(cwd)
}
