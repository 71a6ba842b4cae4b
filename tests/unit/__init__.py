"""Unit tests: modules, engines and files checked directly, without the app over HTTP, a server or a subprocess."""
