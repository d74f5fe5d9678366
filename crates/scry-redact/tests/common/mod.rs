//! A small seeded generator for the test corpora (no external crate: the corpus must be the
//! same on every machine and every run).

#![allow(dead_code)]

const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const DIGITS: &[u8] = b"0123456789";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// xorshift64* — deterministic, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn from(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }

    pub fn alnum(&mut self, n: usize) -> String {
        let a: Vec<u8> = [UPPER, LOWER, DIGITS].concat();
        self.from(&a, n)
    }

    pub fn b64url(&mut self, n: usize) -> String {
        let a: Vec<u8> = [UPPER, LOWER, DIGITS, b"-_".as_slice()].concat();
        self.from(&a, n)
    }

    pub fn b64std(&mut self, n: usize) -> String {
        self.from(B64, n)
    }

    pub fn digits(&mut self, n: usize) -> String {
        self.from(DIGITS, n)
    }

    pub fn upper_digits(&mut self, n: usize) -> String {
        let a: Vec<u8> = [UPPER, DIGITS].concat();
        self.from(&a, n)
    }

    pub fn lower_digits(&mut self, n: usize) -> String {
        let a: Vec<u8> = [LOWER, DIGITS].concat();
        self.from(&a, n)
    }

    pub fn hex(&mut self, n: usize) -> String {
        self.from(b"0123456789abcdef", n)
    }

    pub fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-4{}-a{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        )
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    /// Standard base64 with padding.
    pub fn base64(data: &[u8]) -> String {
        let mut out = String::new();
        for chunk in data.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// A PNG-looking payload (real signature and IHDR start, random body), base64.
    pub fn png_base64(&mut self, n: usize) -> String {
        let mut data = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        data.extend(self.bytes(n));
        Self::base64(&data)
    }

    /// A JPEG-looking payload (SOI + APP0 JFIF marker, random body), base64.
    pub fn jpeg_base64(&mut self, n: usize) -> String {
        let mut data = b"\xff\xd8\xff\xe0\0\x10JFIF\0".to_vec();
        data.extend(self.bytes(n));
        Self::base64(&data)
    }
}
