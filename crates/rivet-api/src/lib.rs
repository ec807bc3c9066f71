//! The callable API model of a class under test and seeded value generators.
//!
//! [`ApiModel::build`] reads the class under test from a classpath: its public constructors,
//! static factories, public methods (inherited from user superclasses too) and writable public
//! fields, with generic types from Signature attributes, and the constants of its code. For
//! any parameter type it knows how to obtain a value ([`ApiModel::producers`]: constructors
//! and factories of the type or of its public subtypes on the classpath, known JDK
//! implementations of `List`, `Set`, `Map`, `Queue`, methods of the class under test and of
//! its package's classes returning the type, lambdas for functional interfaces, class
//! literals). [`Generator`] appends such values and calls to a [`TypedTest`] (a
//! `rivet-testcase` test with each statement's static type), drawing every choice from one
//! seeded [`Rng`].

mod access;
mod casts;
mod class_api;
mod constants;
mod drivers;
mod elements;
mod error;
mod functional;
mod generate;
mod generate_producers;
mod generate_special;
mod model;
mod overloads;
mod snippets;
mod source_text;
mod supply;
mod views;

pub use access::{Access, AccessMode};
pub use casts::FailingCast;
pub use class_api::{Callable, CallableKind, ClassApi};
pub use constants::Constants;
pub use error::ApiError;
pub use functional::Sam;
pub use generate::{GenConfig, Generator};
pub use model::{internal_name, known_implementation, ApiModel};
pub use rivet_rng::Rng;
