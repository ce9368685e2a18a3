// The translation unit that builds the test programs' precompiled header (CMakeLists.txt,
// av_test_pch): it holds nothing of its own.
