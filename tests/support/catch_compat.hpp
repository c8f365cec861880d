// Lets one test source build against Catch2 v2 (single header, Debian 12) and v3 (split
// headers, the GPU machine). Include this instead of any Catch2 header.
#pragma once
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#include <catch2/catch_approx.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/catch_session.hpp>
#define PVEC_CATCH_VERSION 3
#else
#include <catch2/catch.hpp>
#define PVEC_CATCH_VERSION 2
#endif
using Catch::Approx;
