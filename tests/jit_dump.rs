//! `JITSON_DUMP_IR=<dir>` writes the Cranelift IR and the disassembly of every
//! function compiled, under a directory per root type; `JITSON_PERF_MAP=1` lists
//! every function in `/tmp/perf-<pid>.map` for `perf`.

#[derive(jitson::Decode, Debug, PartialEq)]
struct Dumped {
    id: u32,
    tags: Vec<String>,
}

#[test]
fn dump_writes_ir_and_disassembly() {
    if !jitson::Backend::Jit.is_available() {
        eprintln!("NOTICE: no JIT in this build; nothing to dump");
        return;
    }
    let dir = std::env::temp_dir().join(format!("jitson-dump-{}", std::process::id()));
    // SAFETY: this binary's only test sets the variables before any other thread
    // reads the environment. Compiles happen on the decoding thread (`wait`), so
    // the files are there when the decode returns.
    unsafe {
        std::env::set_var("JITSON_DUMP_IR", &dir);
        std::env::set_var("JITSON_TIERING", "wait");
        std::env::set_var("JITSON_PERF_MAP", "1");
    }
    let v: Dumped = jitson::from_str(r#"{"id": 1, "tags": ["a"]}"#).unwrap();
    assert_eq!(
        v,
        Dumped {
            id: 1,
            tags: vec!["a".into()]
        }
    );
    let root = only_dir_starting_with(&dir, "struct_Dumped-");
    let files: Vec<String> = std::fs::read_dir(&root)
        .expect("dump directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let clif = std::fs::read_to_string(root.join("struct_Dumped_0.clif")).expect("IR of the root");
    assert!(
        clif.contains("function") && clif.contains("call_indirect"),
        "{clif}"
    );
    let asm =
        std::fs::read_to_string(root.join("struct_Dumped_0.s")).expect("disassembly of the root");
    assert!(!asm.is_empty());
    let code = std::fs::read(root.join("struct_Dumped_0.bin")).expect("machine code of the root");
    assert!(!code.is_empty());
    // The struct only: its fields' member functions (`u32`, `Vec<String>`, the
    // strings inline in the `Vec`'s loop) depend on their layouts alone and are
    // compiled into the process's library, dumped under `library/`.
    assert_eq!(files.len(), 3, "one function, three files: {files:?}");
    let library: Vec<String> = std::fs::read_dir(dir.join("library"))
        .expect("library dump directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for member in ["member_u32_", "member_a_sequence_"] {
        assert!(
            library
                .iter()
                .any(|f| f.starts_with(member) && f.ends_with(".clif")),
            "{library:?}"
        );
    }

    // Roots with the same description (`Vec<u8>` and `Vec<String>` are both "a
    // sequence") get directories of their own: no dump overwrites another.
    let _: Vec<u8> = jitson::from_str("[1]").unwrap();
    let _: Vec<String> = jitson::from_str(r#"["a"]"#).unwrap();
    let sequences: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("a_sequence-")
        })
        .collect();
    assert_eq!(sequences.len(), 2, "{sequences:?}");
    for sequence in &sequences {
        assert!(sequence.join("a_sequence_0.clif").is_file(), "{sequence:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);

    // JITSON_PERF_MAP=1: `address size name` per function, for `perf report`.
    let map_path = format!("/tmp/perf-{}.map", std::process::id());
    let map = std::fs::read_to_string(&map_path).expect("perf map");
    let _ = std::fs::remove_file(&map_path);
    let line = map
        .lines()
        .find(|l| l.contains(" jitson[struct_Dumped-") && l.ends_with("]::struct_Dumped_0"))
        .unwrap_or_else(|| panic!("{map}"));
    let fields: Vec<&str> = line.splitn(3, ' ').collect();
    assert!(usize::from_str_radix(fields[0], 16).unwrap() > 0, "{line}");
    assert!(usize::from_str_radix(fields[1], 16).unwrap() > 0, "{line}");
    // The two sequence roots, one function each.
    let sequence_roots = map.lines().filter(|l| l.contains(" jitson[a_sequence-"));
    assert_eq!(sequence_roots.count(), 2, "{map}");
    assert!(
        map.lines()
            .any(|l| l.contains(" jitson[library]::member_u32_")),
        "{map}"
    );
}

/// The one entry of `dir` whose name starts with `prefix`.
fn only_dir_starting_with(dir: &std::path::Path, prefix: &str) -> std::path::PathBuf {
    let matches: Vec<_> = std::fs::read_dir(dir)
        .expect("dump directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    assert_eq!(matches.len(), 1, "{matches:?}");
    matches.into_iter().next().unwrap()
}
