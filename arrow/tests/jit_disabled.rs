//! `JITSON_DISABLE_JIT=1` is the process's kill switch for jitson-arrow too:
//! `Backend::Auto` decodes (and writes) on the interpreter, and an explicit
//! `Backend::Jit` is refused with the reason. The variable is read once per process, so this
//! binary has this one test, which sets it before any jitson call.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use jitson_arrow::{Backend, ReaderBuilder};

#[test]
fn jit_is_refused_when_disabled_by_env() {
    // SAFETY: first statement of the only test in this binary: no other thread
    // of this process reads the environment yet.
    unsafe { std::env::set_var("JITSON_DISABLE_JIT", "1") };
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));

    let Err(e) = ReaderBuilder::new(schema.clone())
        .with_backend(Backend::Jit)
        .compile()
    else {
        panic!("Backend::Jit must be refused");
    };
    assert!(e.to_string().contains("JITSON_DISABLE_JIT"), "{e}");

    // Auto still decodes, on the interpreter.
    let batches: Vec<_> = ReaderBuilder::new(schema)
        .build(&b"{\"id\": 1}\n{\"id\": 2}\n"[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 2);

    // The writer: `Jit` refused, `Auto` writes with the plan's encoders.
    let mut w = jitson_arrow::writer::WriterBuilder::new()
        .with_backend(Backend::Jit)
        .build::<_, jitson_arrow::writer::LineDelimited>(Vec::new());
    let e = w
        .write(&batches[0])
        .expect_err("Backend::Jit must be refused");
    assert!(e.to_string().contains("JITSON_DISABLE_JIT"), "{e}");
    let mut w = jitson_arrow::writer::LineDelimitedWriter::new(Vec::new());
    w.write_batches(&batches.iter().collect::<Vec<_>>())
        .unwrap();
    assert!(format!("{w:?}").contains("compiled: false"), "{w:?}");
    assert_eq!(w.into_inner(), b"{\"id\":1}\n{\"id\":2}\n");
}
