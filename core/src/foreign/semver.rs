//! semver's `Version`, `VersionReq` and `Comparator` (feature `semver`), as
//! semver's serde impl (semver 1.x, `src/serde.rs`) has serde_json read and
//! write them: each asks for a string (`deserialize_str`: any other JSON
//! value is refused as serde refuses a wrong type), parses it with the
//! type's `FromStr`, and is written with `collect_str`, its `Display` text:
//!
//! | type | JSON | read by | written as | expecting |
//! |---|---|---|---|---|
//! | `Version` | string | `Version::from_str` (`1.2.3`, `1.0.0-alpha.1+build.5`; no leading zeros, no `v`) | `Display`: `1.2.3-alpha.1+build.5` | "semver version" |
//! | `VersionReq` | string | `VersionReq::from_str` (`^1.2`, `>=1, <2`, `*`) | `Display`: comparators joined by `, `, `*` for none | "semver version" (semver's own wording, the same as `Version`'s) |
//! | `Comparator` | string | `Comparator::from_str` | `Display` | "semver comparator" |
//!
//! A refusal carries semver's own message, as serde's `Error::custom` has
//! it (`unexpected end of input while parsing minor version number`).
//!
//! Read from the string in place (the JIT's scan or the interpreter's hands
//! the text over), with no serde round trip; written straight into the
//! encoder's reserved room when the text fits it.

use semver::{Comparator, Version, VersionReq};

use super::{FromText, Room, ToText};

/// The most bytes the fast path writes, quotes included: every version of
/// three numbers (at most 20 digits each) and most requirements.
const FAST_MAX: usize = 96;

macro_rules! parsed_and_displayed {
    ($($ty:ty,)*) => {$(
        impl FromText for $ty {
            type Error = semver::Error;
            fn from_text(text: &str) -> Result<Self, semver::Error> {
                text.parse()
            }
        }

        impl ToText for $ty {
            const MAX_LEN: usize = FAST_MAX;
            fn fast(&self, room: &mut Room<'_>) -> bool {
                room.quoted_display(self)
            }
            fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
                crate::write::write_str(out, &self.to_string());
                Ok(())
            }
        }
    )*};
}

parsed_and_displayed! { Version, VersionReq, Comparator, }

super::text_scalars! {
    Version => "semver version";
    VersionReq => "semver version";
    Comparator => "semver comparator";
}
