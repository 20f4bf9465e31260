//! jitson-jit: the Cranelift backend (not built yet).
//!
//! This crate will lower a [`jitson_core::layout::TypeLayout`] to Cranelift IR and
//! compile one native decoder per struct layout, writing each value straight at its
//! field offset (see `docs/architecture.md` and the design's section "The JIT").
//! It is a workspace member today so that the crate graph already has its final
//! shape; the facade does not depend on it yet, and `jitson::Backend::Jit` reports
//! the JIT as unavailable.
#![cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x"
))]
