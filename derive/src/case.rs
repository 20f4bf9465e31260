//! The `rename_all` rules, with serde's exact semantics.
//!
//! serde converts from the conventional Rust spelling of the name, not from an
//! arbitrary one: struct fields are assumed to be `snake_case` and variants
//! `PascalCase`. So a rule applies differently to the two (`snake_case` leaves a
//! field unchanged but splits a variant at its capitals), and names that do not follow
//! the convention convert the way serde converts them (`HTTPServer` in `snake_case`
//! is `h_t_t_p_server`). Matching serde here is the point: a type deriving both
//! `Deserialize` and `Decode` must accept the same keys.

/// One of serde's `rename_all` conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameRule {
    /// `lowercase`
    Lower,
    /// `UPPERCASE`
    Upper,
    /// `PascalCase`
    Pascal,
    /// `camelCase`
    Camel,
    /// `snake_case`
    Snake,
    /// `SCREAMING_SNAKE_CASE`
    ScreamingSnake,
    /// `kebab-case`
    Kebab,
    /// `SCREAMING-KEBAB-CASE`
    ScreamingKebab,
}

/// The spellings accepted in `rename_all = "..."`, in serde's order.
const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    /// The rule spelled `name`, if there is one.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        RULES
            .iter()
            .find(|(spelling, _)| *spelling == name)
            .map(|&(_, rule)| rule)
    }

    /// The rule's spelling in `rename_all = "..."`.
    pub(crate) fn name(self) -> &'static str {
        RULES
            .iter()
            .find(|&&(_, rule)| rule == self)
            .map_or("", |&(spelling, _)| spelling)
    }

    /// The accepted spellings, quoted and comma-separated, for error messages.
    pub(crate) fn expected() -> String {
        RULES
            .iter()
            .map(|(spelling, _)| format!("{spelling:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The JSON name of a struct field written `field` (assumed `snake_case`).
    pub(crate) fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => snake_to_pascal(field),
            Self::Camel => lower_first(&snake_to_pascal(field)),
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// The JSON name of an enum variant written `variant` (assumed `PascalCase`).
    pub(crate) fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => lower_first(variant),
            Self::Snake => pascal_to_snake(variant),
            Self::ScreamingSnake => pascal_to_snake(variant).to_ascii_uppercase(),
            Self::Kebab => pascal_to_snake(variant).replace('_', "-"),
            Self::ScreamingKebab => pascal_to_snake(variant)
                .to_ascii_uppercase()
                .replace('_', "-"),
        }
    }
}

/// `very_tasty` → `VeryTasty`: drops underscores and capitalises (ASCII) the
/// character after each, and the first.
fn snake_to_pascal(field: &str) -> String {
    let mut pascal = String::with_capacity(field.len());
    let mut capitalize = true;
    for ch in field.chars() {
        if ch == '_' {
            capitalize = true;
        } else if capitalize {
            pascal.push(ch.to_ascii_uppercase());
            capitalize = false;
        } else {
            pascal.push(ch);
        }
    }
    pascal
}

/// `VeryTasty` → `very_tasty`: an underscore before every uppercase character but the
/// first, and every character lowercased (ASCII).
fn pascal_to_snake(variant: &str) -> String {
    let mut snake = String::with_capacity(variant.len() + 4);
    for (i, ch) in variant.char_indices() {
        if i > 0 && ch.is_uppercase() {
            snake.push('_');
        }
        snake.push(ch.to_ascii_lowercase());
    }
    snake
}

/// The name with its first character lowercased (ASCII). serde slices off the first
/// byte instead, which is the same for the ASCII names it does not panic on.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => {
            let mut lowered = String::with_capacity(name.len());
            lowered.push(first.to_ascii_lowercase());
            lowered.push_str(chars.as_str());
            lowered
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::{self, *};

    const ALL: [RenameRule; 8] = [
        Lower,
        Upper,
        Pascal,
        Camel,
        Snake,
        ScreamingSnake,
        Kebab,
        ScreamingKebab,
    ];

    #[test]
    fn spellings_round_trip() {
        for (spelling, rule) in super::RULES {
            assert_eq!(RenameRule::from_name(spelling), Some(*rule));
        }
        assert_eq!(super::RULES.len(), ALL.len());
        for wrong in [
            "",
            "snake",
            "SnakeCase",
            "camelcase",
            "Kebab-Case",
            "lower_case",
        ] {
            assert_eq!(RenameRule::from_name(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn expected_lists_every_spelling() {
        assert_eq!(
            RenameRule::expected(),
            concat!(
                r#""lowercase", "UPPERCASE", "PascalCase", "camelCase", "snake_case", "#,
                r#""SCREAMING_SNAKE_CASE", "kebab-case", "SCREAMING-KEBAB-CASE""#,
            )
        );
    }

    /// Each row: the Rust name, then its conversion under the rules in `ALL` order.
    fn check(apply: fn(RenameRule, &str) -> String, rows: &[[&str; 9]]) {
        for row in rows {
            let (original, expected) = (row[0], &row[1..]);
            for (rule, want) in ALL.iter().zip(expected) {
                assert_eq!(apply(*rule, original), *want, "{rule:?} of {original:?}");
            }
        }
    }

    #[test]
    fn fields() {
        // original, lower, UPPER, Pascal, camel, snake, SCREAMING, kebab, SCREAMING-KEBAB
        check(
            RenameRule::apply_to_field,
            &[
                [
                    "outcome", "outcome", "OUTCOME", "Outcome", "outcome", "outcome", "OUTCOME",
                    "outcome", "OUTCOME",
                ],
                [
                    "very_tasty",
                    "very_tasty",
                    "VERY_TASTY",
                    "VeryTasty",
                    "veryTasty",
                    "very_tasty",
                    "VERY_TASTY",
                    "very-tasty",
                    "VERY-TASTY",
                ],
                ["a", "a", "A", "A", "a", "a", "A", "a", "A"],
                [
                    "z42", "z42", "Z42", "Z42", "z42", "z42", "Z42", "z42", "Z42",
                ],
                [
                    "user_id_2",
                    "user_id_2",
                    "USER_ID_2",
                    "UserId2",
                    "userId2",
                    "user_id_2",
                    "USER_ID_2",
                    "user-id-2",
                    "USER-ID-2",
                ],
                // Leading, doubled and trailing underscores vanish in the cased styles.
                [
                    "_private__x_",
                    "_private__x_",
                    "_PRIVATE__X_",
                    "PrivateX",
                    "privateX",
                    "_private__x_",
                    "_PRIVATE__X_",
                    "-private--x-",
                    "-PRIVATE--X-",
                ],
                // Non-conventional field names: only ASCII case changes, as in serde.
                [
                    "userName", "userName", "USERNAME", "UserName", "userName", "userName",
                    "USERNAME", "userName", "USERNAME",
                ],
                [
                    "größe", "größe", "GRößE", "Größe", "größe", "größe", "GRößE", "größe", "GRößE",
                ],
                // serde panics on camelCase of an all-underscore name; we give "".
                ["__", "__", "__", "", "", "__", "__", "--", "--"],
            ],
        );
    }

    #[test]
    fn variants() {
        // original, lower, UPPER, Pascal, camel, snake, SCREAMING, kebab, SCREAMING-KEBAB
        check(
            RenameRule::apply_to_variant,
            &[
                [
                    "Outcome", "outcome", "OUTCOME", "Outcome", "outcome", "outcome", "OUTCOME",
                    "outcome", "OUTCOME",
                ],
                [
                    "VeryTasty",
                    "verytasty",
                    "VERYTASTY",
                    "VeryTasty",
                    "veryTasty",
                    "very_tasty",
                    "VERY_TASTY",
                    "very-tasty",
                    "VERY-TASTY",
                ],
                ["A", "a", "A", "A", "a", "a", "A", "a", "A"],
                [
                    "Z42", "z42", "Z42", "Z42", "z42", "z42", "Z42", "z42", "Z42",
                ],
                // Every capital starts a word, acronyms included.
                [
                    "HTTPServer",
                    "httpserver",
                    "HTTPSERVER",
                    "HTTPServer",
                    "hTTPServer",
                    "h_t_t_p_server",
                    "H_T_T_P_SERVER",
                    "h-t-t-p-server",
                    "H-T-T-P-SERVER",
                ],
                // Underscores already present are kept.
                [
                    "Not_Pascal",
                    "not_pascal",
                    "NOT_PASCAL",
                    "Not_Pascal",
                    "not_Pascal",
                    "not__pascal",
                    "NOT__PASCAL",
                    "not--pascal",
                    "NOT--PASCAL",
                ],
                // Non-ASCII capitals split words but are not lowercased.
                [
                    "ÜberAll",
                    "Überall",
                    "ÜBERALL",
                    "ÜberAll",
                    "ÜberAll",
                    "Über_all",
                    "ÜBER_ALL",
                    "Über-all",
                    "ÜBER-ALL",
                ],
            ],
        );
    }
}
