//! One module per [`Kind`](jitson_core::layout::Kind) family; the JIT's `jit/src/kind/`
//! has the same file names, with `emit_*` for each `decode_*` here.

mod column;
pub(crate) mod enum_;
pub(crate) mod map;
pub(crate) mod newtype;
mod option;
mod scalar;
pub(crate) mod seq;
pub(crate) mod string;
pub(crate) mod struct_;
