//! One document of many untagged values, as API descriptions are written
//! (openapiv3's `ReferenceOr<T>`: `{"$ref": ...}` or the item itself), at
//! three sizes: jitson's interpreter and JIT against serde_json, the mean of
//! 20 decodes each. A decode whose time grows faster than the document shows
//! here: until 2026-12-04 every untagged candidate that failed counted the
//! lines of the input up to its error, so this took 140 ms at 330 KB
//! (serde_json 1.2 ms).
//!
//! ```text
//! cargo run --release -p jitson-benches --example untagged_docs
//! ```

use std::time::Instant;

use serde::Deserialize;

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum ReferenceOr<T> {
    Reference {
        #[serde(rename = "$ref")]
        reference: String,
    },
    Item(T),
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Param {
    name: String,
    #[serde(rename = "in")]
    location: String,
    required: bool,
    description: Option<String>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Doc {
    params: Vec<ReferenceOr<Param>>,
}

fn main() {
    for n in [100usize, 1_000, 4_000] {
        let mut items = Vec::new();
        for i in 0..n {
            if i % 5 == 0 {
                items.push(format!(r##"{{"$ref":"#/components/parameters/p{i}"}}"##));
            } else {
                items.push(format!(
                    r#"{{"name":"param{i}","in":"query","required":{},"description":"the parameter number {i}"}}"#,
                    i % 2 == 0
                ));
            }
        }
        let doc = format!("{{\"params\":[\n{}\n]}}", items.join(",\n"));
        let reps = 20;
        let t = Instant::now();
        for _ in 0..reps {
            let d: Doc = serde_json::from_str(&doc).unwrap();
            std::hint::black_box(d);
        }
        let serde = t.elapsed() / reps;
        for backend in [jitson::Backend::Interpreter, jitson::Backend::Jit] {
            let dec = jitson::Decoder::<Doc>::with_backend(backend);
            let _ = dec.decode_str(&doc).unwrap();
            let t = Instant::now();
            for _ in 0..reps {
                let d = dec.decode_str(&doc).unwrap();
                std::hint::black_box(d);
            }
            let ours = t.elapsed() / reps;
            println!(
                "{n:>5} values, {:>7} bytes, {:<11}: jitson {ours:>10.1?}, serde_json {serde:>10.1?}, \
                 serde_json's time / jitson's {:.2}",
                doc.len(),
                format!("{backend:?}"),
                serde.as_secs_f64() / ours.as_secs_f64()
            );
        }
    }
}
