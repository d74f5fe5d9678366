//! Manual measurement (ignored): `SCRY_MEASURE_FILE=<session> cargo test --release -p
//! scry-source-gemini --test measure -- --ignored --nocapture` prints parse time and counts.

use std::time::Instant;

use scry_source::Source;
use scry_source_gemini::GeminiSource;

#[test]
#[ignore]
fn measure() {
    let Ok(path) = std::env::var("SCRY_MEASURE_FILE") else {
        return;
    };
    let file = GeminiSource
        .detect(std::path::Path::new(&path))
        .expect("a Gemini session");
    let t = Instant::now();
    let header = GeminiSource.scan_header(&file).unwrap();
    let scan = t.elapsed();
    let t = Instant::now();
    let s = GeminiSource.parse(&file).unwrap();
    let parse = t.elapsed();
    println!(
        "{} bytes: header scan {:?}, full parse {:?}, {} events, {} warnings, title {:?}",
        file.size,
        scan,
        parse,
        s.events.len(),
        s.warnings.len(),
        header.title
    );
}
