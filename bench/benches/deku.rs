//! One record table (a header, then 16-byte records of four u32, the shape
//! of SARC's file table) read and written by the codec generated from
//! `bench/schemas/records.ron` and by an equivalent deku derive, in the same
//! run. 10,000 records; both give the same values (checked before timing).

use bench::records;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use deku::prelude::*;
use std::hint::black_box;

#[derive(Debug, Clone, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(endian = "little", magic = b"RTBL")]
struct DekuTable {
    count: u32,
    #[deku(count = "count")]
    records: Vec<DekuRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, DekuRead, DekuWrite)]
#[deku(ctx = "endian: deku::ctx::Endian", endian = "endian")]
struct DekuRecord {
    hash: u32,
    attributes: u32,
    start: u32,
    end: u32,
}

const RECORDS: u32 = 10_000;

fn table() -> records::Table {
    records::Table {
        records: (0..RECORDS)
            .map(|i| records::Record {
                hash: i.wrapping_mul(0x9E37_79B9),
                attributes: 0x0100_0000 | i,
                start: i * 64,
                end: i * 64 + 48,
            })
            .collect(),
    }
}

fn bench(c: &mut Criterion) {
    let bytes = records::encode(&table()).expect("encode");
    let (_, peer) = DekuTable::from_bytes((&bytes, 0)).expect("deku reads the table");
    let ours = records::decode(&bytes).expect("decode");
    assert_eq!(peer.records.len(), ours.records.len());
    assert!(peer.records.iter().zip(&ours.records).all(|(p, o)| {
        (p.hash, p.attributes, p.start, p.end) == (o.hash, o.attributes, o.start, o.end)
    }));
    assert_eq!(peer.to_bytes().expect("deku writes"), bytes);

    let mut g = c.benchmark_group("record_table_decode");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("codec", |b| {
        b.iter(|| records::decode(black_box(&bytes)).unwrap())
    });
    g.bench_function("deku", |b| {
        b.iter(|| DekuTable::from_bytes((black_box(&bytes), 0)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("record_table_encode");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("codec", |b| {
        b.iter(|| records::encode(black_box(&ours)).unwrap())
    });
    g.bench_function("deku", |b| b.iter(|| black_box(&peer).to_bytes().unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
