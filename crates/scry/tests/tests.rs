//! Integration tests of the scry binary.
