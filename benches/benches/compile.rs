//! JIT compile latency.
//!
//! 1. Criterion group `compile`: `jitson_jit::compile` called directly (outside the
//!    facade's cache, so every iteration compiles from scratch) for the seed types
//!    and the whole corpus models, in both tiers: `jitson_jit::compile/Order` is
//!    the 30-field layout's optimising tier (unrolled structs),
//!    `jitson_jit::compile_baseline/Order` its baseline tier (struct tables),
//!    `…/Twitter` everything reachable from the twitter.json root. The compiled
//!    module is freed outside the timing.
//! 2. Printed before that: the first decode (compile included, through the
//!    facade's cache) of a type never decoded before, issued alone and then while
//!    other threads also make their first decode of new types. Each trial uses
//!    fresh types, `Fresh<T, N>` (`{"inner": <T>}`) with a new `N`, since the cache
//!    compiles a type once per process.
//!
//! Run: `cargo bench -p jitson-benches --bench compile`.

use criterion::{Criterion, criterion_group, criterion_main};

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x"
))]
mod jit {
    use std::sync::Barrier;
    use std::time::{Duration, Instant};

    use criterion::Criterion;
    use jitson::{Backend, Decode, Decoder};
    use jitson_benches::models::{canada::Canada, citm::CitmCatalog, twitter::Twitter};
    use jitson_benches::seed::{Account, Order, User};
    use jitson_benches::{corpus_dir, one};
    use jitson_jit::{CompileOptions, StructLowering, compile};

    fn compile_one<T: Decode>(
        c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        name: &str,
    ) {
        // The optimising tier under the bench's historical name, then the
        // baseline tier.
        for (bench, structs) in [
            ("jitson_jit::compile", StructLowering::Unrolled),
            ("jitson_jit::compile_baseline", StructLowering::Table),
        ] {
            let options = || CompileOptions {
                structs,
                ..Default::default()
            };
            let compiled = compile(<T as jitson::HasLayout>::LAYOUT, options())
                .unwrap_or_else(|e| panic!("compiling {name}: {e}"));
            println!(
                "{name} ({structs:?}): {} functions, {} bytes of code, {:?} (first compile in this process){}",
                compiled.functions,
                compiled.code_bytes,
                compiled.compile_time,
                if compiled.interpreted.is_empty() {
                    String::new()
                } else {
                    format!("; interpreted: {:?}", compiled.interpreted)
                }
            );
            drop(compiled);
            c.bench_function(format!("{bench}/{name}"), |b| {
                b.iter_with_large_drop(|| {
                    compile(<T as jitson::HasLayout>::LAYOUT, options()).unwrap()
                })
            });
        }
    }

    /// `warm_up` of 1,000 distinct struct types (`Fresh<User, 0>` ..
    /// `Fresh<User, 999>`: each a root of its own, so each compiles a module with
    /// the wrapper, `User` and its field functions), one after another on one
    /// thread; prints the total (issue 10's target: 2 s).
    pub fn warm_up_thousand() {
        if !Backend::Jit.is_available() {
            return;
        }
        macro_rules! thousand {
            ($($tens:literal)*) => {$(
                thousand!(@units $tens; 0 1 2 3 4 5 6 7 8 9);
            )*};
            (@units $tens:literal; $($units:literal)*) => {$(
                jitson::warm_up::<Fresh<User, { 1000 + 10 * $tens + $units }>>().expect("warm_up");
            )*};
        }
        let before = jitson::stats();
        let start = Instant::now();
        thousand!(
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
            30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
            57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83
            84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99
        );
        let took = start.elapsed();
        let after = jitson::stats();
        println!(
            "warm_up of 1,000 distinct types (Fresh<User, N>): {took:?} in total, {} compiled, {} bytes of code",
            after.layouts_compiled - before.layouts_compiled,
            after.code_bytes - before.code_bytes
        );
    }

    /// First decodes of 40 never-seen types (`Fresh<User, 2000..2040>`): the
    /// interpreter's, then `Backend::Auto`'s with background tiering (the
    /// interpreter while the type's compile is queued), each on its own fresh
    /// root; prints the medians (issue 10's target: tiered ≤ 2× interpreter).
    pub fn tiered_first_calls() {
        if !Backend::Jit.is_available() {
            return;
        }
        let doc = wrap(br#"{"id": 1, "name": "ada", "email": "a@example.org", "tags": ["x"], "profile": {"age": 36, "city": "London", "is_admin": false}}"#);
        fn pair<const N: usize>(doc: &[u8]) -> (Duration, Duration) {
            let start = Instant::now();
            Decoder::<Fresh<User, N>>::with_backend(Backend::Interpreter)
                .decode_slice(doc)
                .expect("decodes");
            let interpreter = start.elapsed();
            let start = Instant::now();
            Decoder::<Box<Fresh<User, N>>>::new()
                .tiering(jitson::Tiering::Background)
                .decode_slice(doc)
                .expect("decodes");
            (interpreter, start.elapsed())
        }
        macro_rules! pairs {
            ($($n:literal)*) => { vec![$(pair::<{ 2000 + $n }>(&doc)),*] };
        }
        let mut pairs = pairs!(
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
            30 31 32 33 34 35 36 37 38 39
        );
        let mut interpreter: Vec<Duration> = pairs.iter().map(|p| p.0).collect();
        pairs.sort_by_key(|p| p.1);
        interpreter.sort();
        let tiered = pairs[20].1;
        println!(
            "first decode of 40 fresh types (median): interpreter {:?}, Auto with background tiering {tiered:?} ({:.2}x)",
            interpreter[20],
            tiered.as_secs_f64() / interpreter[20].as_secs_f64()
        );
    }

    pub fn compile_latency(c: &mut Criterion) {
        if !Backend::Jit.is_available() {
            println!("NOTICE: the JIT cannot run here; compile benches skipped");
            return;
        }
        let mut g = c.benchmark_group("compile");
        g.sample_size(20);
        compile_one::<User>(&mut g, "User");
        compile_one::<Account>(&mut g, "Account");
        compile_one::<Order>(&mut g, "Order");
        if corpus_dir().is_some() {
            compile_one::<Twitter>(&mut g, "Twitter");
            compile_one::<CitmCatalog>(&mut g, "CitmCatalog");
            compile_one::<Canada>(&mut g, "Canada");
        } else {
            // The models compile without the files, but keep the groups uniform.
            println!("{}", jitson_benches::NO_CORPUS);
        }
        g.finish();
    }

    /// A new type for every `N`: the first decode of `Fresh<T, N>` compiles its
    /// decoder, and everything `T` reaches, afresh.
    #[derive(jitson::Decode)]
    struct Fresh<T, const N: usize> {
        inner: T,
    }

    /// The time of the first decode of `T` in this process (compile included).
    fn first_decode<T: Decode + 'static>(doc: &[u8]) -> Duration {
        let start = Instant::now();
        let value = Decoder::<T>::with_backend(Backend::Jit)
            .decode_slice(doc)
            .expect("decodes");
        let took = start.elapsed();
        drop(value);
        took
    }

    /// The data: one document per type, wrapped as `{"inner": ...}`.
    struct Docs {
        order: Vec<u8>,
        /// The other types' documents: twitter, citm, canada (or, without the
        /// corpus, a User and an Account).
        others: Vec<Vec<u8>>,
        corpus: bool,
    }

    fn wrap(doc: &[u8]) -> Vec<u8> {
        let mut v = b"{\"inner\":".to_vec();
        v.extend_from_slice(doc);
        v.push(b'}');
        v
    }

    /// Per type: the latency alone, then together.
    type Trial = (Vec<Duration>, Vec<Duration>);

    /// One trial: each type's first decode alone (one after another, types `A`),
    /// then all at once on their own threads (types `B`), started by a barrier.
    fn trial<const A: usize, const B: usize>(docs: &Docs) -> Trial {
        macro_rules! each {
            ($n:expr, $f:ident) => {{
                if docs.corpus {
                    [
                        $f::<Fresh<Order, $n>>(&docs.order),
                        $f::<Fresh<Twitter, $n>>(&docs.others[0]),
                        $f::<Fresh<CitmCatalog, $n>>(&docs.others[1]),
                        $f::<Fresh<Canada, $n>>(&docs.others[2]),
                    ]
                    .to_vec()
                } else {
                    [
                        $f::<Fresh<Order, $n>>(&docs.order),
                        $f::<Fresh<User, $n>>(&docs.others[0]),
                        $f::<Fresh<Account, $n>>(&docs.others[1]),
                    ]
                    .to_vec()
                }
            }};
        }
        let alone = each!(A, first_decode);

        let threads = if docs.corpus { 4 } else { 3 };
        let barrier = Barrier::new(threads);
        let together = std::thread::scope(|s| {
            let barrier = &barrier;
            macro_rules! go {
                ($t:ty, $doc:expr) => {
                    s.spawn(move || {
                        barrier.wait();
                        first_decode::<$t>($doc)
                    })
                };
            }
            let handles = if docs.corpus {
                vec![
                    go!(Fresh<Order, B>, &docs.order),
                    go!(Fresh<Twitter, B>, &docs.others[0]),
                    go!(Fresh<CitmCatalog, B>, &docs.others[1]),
                    go!(Fresh<Canada, B>, &docs.others[2]),
                ]
            } else {
                vec![
                    go!(Fresh<Order, B>, &docs.order),
                    go!(Fresh<User, B>, &docs.others[0]),
                    go!(Fresh<Account, B>, &docs.others[1]),
                ]
            };
            handles
                .into_iter()
                .map(|h| h.join().expect("decoding thread"))
                .collect::<Vec<_>>()
        });
        (alone, together)
    }

    fn median_ms(v: &mut [Duration]) -> (f64, f64, f64) {
        v.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        (ms(v[v.len() / 2]), ms(v[0]), ms(v[v.len() - 1]))
    }

    /// Prints the first-decode latencies, alone and under concurrency.
    pub fn concurrent_first_decode() {
        if !Backend::Jit.is_available() {
            println!("NOTICE: the JIT cannot run here; concurrent first-decode trials skipped");
            return;
        }
        let dir = corpus_dir();
        let read = |name: &str| {
            let dir = dir.as_ref().unwrap();
            wrap(&std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}")))
        };
        let docs = Docs {
            order: wrap(&one(9, Order::generate)),
            others: if dir.is_some() {
                vec![
                    read("twitter.json"),
                    read("citm_catalog.json"),
                    read("canada.json"),
                ]
            } else {
                println!("{}", jitson_benches::NO_CORPUS);
                vec![
                    wrap(&one(1, User::generate)),
                    wrap(&one(3, Account::generate)),
                ]
            },
            corpus: dir.is_some(),
        };
        let names: &[&str] = if docs.corpus {
            &["Order", "Twitter", "CitmCatalog", "Canada"]
        } else {
            &["Order", "User", "Account"]
        };
        // The process-wide set-up (probe, cache) is not part of any trial.
        first_decode::<Fresh<Order, 999>>(&docs.order);

        macro_rules! trials {
            ($(($a:literal, $b:literal)),*) => { vec![$(trial::<$a, $b>(&docs)),*] };
        }
        let trials: Vec<Trial> = trials!(
            (0, 100),
            (1, 101),
            (2, 102),
            (3, 103),
            (4, 104),
            (5, 105),
            (6, 106),
            (7, 107),
            (8, 108),
            (9, 109),
            (10, 110),
            (11, 111),
            (12, 112),
            (13, 113),
            (14, 114)
        );
        println!(
            "\nFirst decode of a new type (compile included), {} trials, {} threads at once on {} CPUs:",
            trials.len(),
            names.len(),
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
        println!(
            "| type | alone: median (min-max) ms | with the others at once: median (min-max) ms |"
        );
        println!("|---|---:|---:|");
        for (i, name) in names.iter().enumerate() {
            let (a, a_min, a_max) =
                median_ms(&mut trials.iter().map(|t| t.0[i]).collect::<Vec<_>>());
            let (b, b_min, b_max) =
                median_ms(&mut trials.iter().map(|t| t.1[i]).collect::<Vec<_>>());
            println!(
                "| {name} | {a:.3} ({a_min:.3}-{a_max:.3}) | {b:.3} ({b_min:.3}-{b_max:.3}) |"
            );
        }
        println!();
    }
}

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x"
))]
fn compile_latency(c: &mut Criterion) {
    jit::tiered_first_calls();
    jit::warm_up_thousand();
    jit::concurrent_first_decode();
    jit::compile_latency(c);
}

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x"
)))]
fn compile_latency(_: &mut Criterion) {
    println!("NOTICE: no JIT on this target; compile benches skipped");
}

criterion_group!(benches, compile_latency);
criterion_main!(benches);
