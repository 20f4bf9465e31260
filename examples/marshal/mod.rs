//! The Marshal table of `examples/compare.rs`: every data set's values encoded
//! by each jitson backend, serde_json, sonic-rs and simd-json, interleaved, with
//! each contender's bytes compared with serde_json's first.
//!
//! jitson's bytes must equal serde_json's (the run stops if not); a peer's may
//! differ (sonic-rs and simd-json format some floats their own way), which the
//! table's last column reports instead of stopping.

use std::fmt::Debug;
use std::hint::black_box;
use std::time::Instant;

use jitson::{Backend, Encode, Encoder};
use serde::Serialize;

use crate::{AllocCount, ROUND_SECS, count_allocs};

/// An encoder under test: appends one value's JSON text to a buffer.
type EncodeFn<T> = Box<dyn Fn(&T, &mut Vec<u8>) -> Result<(), String>>;

/// The same library's own `to_vec` entry (its allocations are counted).
type ToVecFn<T> = Box<dyn Fn(&T) -> Result<Vec<u8>, String>>;

struct Contender<T> {
    name: String,
    encode: EncodeFn<T>,
    to_vec: ToVecFn<T>,
}

/// One line of the Marshal table.
pub struct Row {
    pub data: String,
    pub contender: String,
    pub ns_per_op: f64,
    pub mb_per_s: f64,
    pub allocs_per_op: f64,
    pub bytes_per_op: f64,
    pub vs_serde: f64,
    pub vs_serde_min: f64,
    pub vs_serde_max: f64,
    /// Whether every value's bytes equal serde_json's.
    pub same_bytes: bool,
}

/// The contenders: each jitson backend that can encode here, then the peers.
/// `pretty`: the pretty-printing entry of each.
fn contenders<T: Encode + Serialize + 'static>(pretty: bool) -> Vec<Contender<T>> {
    let mut list: Vec<Contender<T>> = Vec::new();
    for backend in [Backend::Jit, Backend::Interpreter] {
        let encoder = Encoder::<T>::with_backend(backend).pretty(pretty);
        let entry = if pretty { "to_vec_pretty" } else { "to_vec" };
        list.push(Contender {
            name: format!("jitson::{entry}/{}", backend.name()),
            encode: Box::new(move |v, out| encoder.encode_into(v, out).map_err(|e| e.to_string())),
            to_vec: Box::new(move |v| encoder.encode(v).map_err(|e| e.to_string())),
        });
    }
    if pretty {
        list.push(Contender {
            name: "serde_json::to_vec_pretty".into(),
            encode: Box::new(|v, out| {
                serde_json::to_writer_pretty(out, v).map_err(|e| e.to_string())
            }),
            to_vec: Box::new(|v| serde_json::to_vec_pretty(v).map_err(|e| e.to_string())),
        });
        list.push(Contender {
            name: "sonic_rs::to_vec_pretty".into(),
            encode: Box::new(|v, out| {
                sonic_rs::to_writer_pretty(out, v).map_err(|e| e.to_string())
            }),
            to_vec: Box::new(|v| sonic_rs::to_vec_pretty(v).map_err(|e| e.to_string())),
        });
    } else {
        list.push(Contender {
            name: "serde_json::to_vec".into(),
            encode: Box::new(|v, out| serde_json::to_writer(out, v).map_err(|e| e.to_string())),
            to_vec: Box::new(|v| serde_json::to_vec(v).map_err(|e| e.to_string())),
        });
        list.push(Contender {
            name: "sonic_rs::to_vec".into(),
            encode: Box::new(|v, out| sonic_rs::to_writer(out, v).map_err(|e| e.to_string())),
            to_vec: Box::new(|v| sonic_rs::to_vec(v).map_err(|e| e.to_string())),
        });
        list.push(Contender {
            name: "simd_json::serde::to_vec".into(),
            encode: Box::new(|v, out| {
                simd_json::serde::to_writer(out, v).map_err(|e| e.to_string())
            }),
            to_vec: Box::new(|v| simd_json::serde::to_vec(v).map_err(|e| e.to_string())),
        });
    }
    list
}

/// Encodes `values` with each contender: first once, comparing bytes with
/// serde_json's; then counting the allocations of each library's own `to_vec`
/// (warm: after one untimed pass); then timed into a reused buffer for
/// `rounds` interleaved rounds.
pub fn run<T>(data: &str, values: &[T], rounds: usize, pretty: bool) -> Vec<Row>
where
    T: Encode + Serialize + Debug + 'static,
{
    let mut contenders = contenders::<T>(pretty);
    // A backend that cannot encode here (the JIT where it is unavailable or
    // does not lower encoders) is left out, with a note.
    contenders.retain(|c| match (c.encode)(&values[0], &mut Vec::new()) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("note: {} skipped: {e}", c.name);
            false
        }
    });
    let reference: Vec<Vec<u8>> = values
        .iter()
        .map(|v| {
            if pretty {
                serde_json::to_vec_pretty(v)
            } else {
                serde_json::to_vec(v)
            }
            .expect("serde_json encodes")
        })
        .collect();
    let mut same = Vec::new();
    for c in &contenders {
        let mut all_same = true;
        for (v, expected) in values.iter().zip(&reference) {
            let mut out = Vec::new();
            (c.encode)(v, &mut out).unwrap_or_else(|e| panic!("{data}: {} failed: {e}", c.name));
            if out != *expected {
                if c.name.starts_with("jitson") {
                    panic!(
                        "{data}: {} wrote other bytes than serde_json:\n{}\nexpected\n{}",
                        c.name,
                        String::from_utf8_lossy(&out),
                        String::from_utf8_lossy(expected)
                    );
                }
                all_same = false;
            }
        }
        same.push(all_same);
    }
    let allocs: Vec<AllocCount> = contenders
        .iter()
        .map(|c| {
            // Each library's own `to_vec`, once warm (a first pass untimed).
            for v in values {
                black_box((c.to_vec)(v).expect("encodes"));
            }
            let mut outs = Vec::with_capacity(values.len());
            let (_, count) = count_allocs(|| {
                for v in values {
                    outs.push((c.to_vec)(v).expect("encodes"));
                }
            });
            count
        })
        .collect();
    let bytes: usize = reference.iter().map(Vec::len).sum();
    let serde_index = contenders
        .iter()
        .position(|c| c.name.starts_with("serde_json"))
        .expect("serde_json is a contender");
    // Each pass encodes every value into one reused buffer, cleared per value:
    // what a server writing responses does, and the same work for everyone.
    let time = |c: &Contender<T>, reps: usize| {
        let mut out = Vec::with_capacity(reference.iter().map(Vec::len).max().unwrap_or(0));
        let start = Instant::now();
        for _ in 0..reps {
            for v in values {
                out.clear();
                black_box((c.encode)(black_box(v), &mut out).is_ok());
            }
        }
        start.elapsed().as_secs_f64() / reps as f64
    };
    let once = time(&contenders[serde_index], 1);
    let reps = ((ROUND_SECS / once).ceil() as usize).max(1);
    let times = crate::interleave(contenders.len(), rounds, |i| time(&contenders[i], reps));
    let n = values.len() as f64;
    contenders
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let crate::Timing {
                secs,
                vs,
                vs_min,
                vs_max,
            } = crate::timing(&times, serde_index, i);
            Row {
                data: data.to_owned(),
                contender: c.name.clone(),
                ns_per_op: secs * 1e9 / n,
                mb_per_s: bytes as f64 / secs / 1e6,
                allocs_per_op: allocs[i].allocs as f64 / n,
                bytes_per_op: allocs[i].bytes as f64 / n,
                vs_serde: vs,
                vs_serde_min: vs_min,
                vs_serde_max: vs_max,
                same_bytes: same[i],
            }
        })
        .collect()
}

/// Prints the table.
pub fn print(rows: &[Row]) {
    println!(
        "| data | contender | ns/op | MB/s (output) | allocs/op | bytes/op | vs serde_json (median, range) | bytes equal to serde_json's |"
    );
    println!("|---|---|---:|---:|---:|---:|---|---|");
    for r in rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {} | {:.0} | {:.2}x ({:.2}-{:.2}) | {} |",
            r.data,
            r.contender,
            r.ns_per_op,
            r.mb_per_s,
            crate::per_op(r.allocs_per_op),
            r.bytes_per_op,
            r.vs_serde,
            r.vs_serde_min,
            r.vs_serde_max,
            if r.same_bytes { "yes" } else { "no" }
        );
    }
}
