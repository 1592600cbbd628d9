//! What the AAMP examples share.

/// The AAMP files of the corpus that both our codec and roead decode (the
/// set the `aamp` benchmark times), or `None` without a corpus.
pub fn aamp_files_both_decode() -> Option<Vec<Vec<u8>>> {
    let all = bench::load_aamp()?;
    Some(
        all.into_iter()
            .filter(|f| {
                formats::aamp::decode(&f.bytes).is_ok()
                    && roead::aamp::ParameterIO::from_binary(&f.bytes).is_ok()
            })
            .map(|f| f.bytes)
            .collect(),
    )
}
