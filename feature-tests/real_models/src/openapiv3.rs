//! openapiv3: every document under `fixtures/` is an OpenAPI 3.0 description,
//! decoded into `openapiv3::OpenAPI` (the crate's test in
//! `security_scheme.rs` reads `fixtures/slack.json` so; its repository's
//! tests, which the package does not ship, read the others the same way). The
//! eight JSON fixtures are used as they are; the YAML ones form an extra set,
//! turned into JSON text by serde_yaml into a `serde_json::Value` (marked).

use crate::Case;

const K: &str = "openapiv3";

const JSON: &[&str] = &[
    "fixtures/fitbit.json",
    "fixtures/polygon.json",
    "fixtures/quayio.json",
    "fixtures/slack.json",
    "fixtures/swagger_generator.json",
    "fixtures/twilio.json",
    "fixtures/walmart.json",
    "fixtures/xkcd.json",
];

const YAML: &[&str] = &[
    "fixtures/adobe_aem.yaml",
    "fixtures/api-with-examples.yaml",
    "fixtures/authentiq.yaml",
    "fixtures/azure_advisor.yaml",
    "fixtures/callback-example.yaml",
    "fixtures/docker.yaml",
    "fixtures/forge.yaml",
    "fixtures/link-example.yaml",
    "fixtures/petstore-discriminated.yaml",
    "fixtures/petstore-expanded.yaml",
    "fixtures/petstore.yaml",
    "fixtures/quayio.yaml",
    "fixtures/stripe.yaml",
];

fn yaml_to_json(bytes: &[u8]) -> Vec<u8> {
    let value: serde_json::Value = serde_yaml::from_slice(bytes).expect("a YAML fixture");
    serde_json::to_vec(&value).unwrap()
}

pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for &fixture in JSON {
        all.push(crate::case!(K, fixture, openapiv3::OpenAPI));
    }
    for &fixture in YAML {
        all.push(Case {
            convert: Some(yaml_to_json),
            ..crate::case!(K, fixture, openapiv3::OpenAPI, "YAML fixture, as JSON (serde_yaml -> serde_json::Value -> text)")
        });
    }
    all
}
