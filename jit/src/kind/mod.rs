//! One module per kind family, twins of the interpreter's `fallback/src/kind/`:
//! `emit_*` here does what `decode_*` does there, on the fast path, and hands the
//! value to the interpreter for everything else.

mod column;
pub(crate) mod enum_;
mod map;
mod newtype;
mod option;
mod scalar;
mod seq;
mod string;
pub(crate) mod struct_;
pub(crate) mod struct_table;

pub(crate) use string::vector_specials;
pub(crate) use struct_::MemberStatus;
pub(crate) use struct_table::StructTable;
