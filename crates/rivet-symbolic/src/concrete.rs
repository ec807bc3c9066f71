//! Concrete mode (placeholder).
