//! (module under construction: see the issue that owns it)
