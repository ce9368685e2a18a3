// AV_FP_CONTRACT_OFF, written once at file scope after the includes, makes the rest of
// that file's floating-point results bit-identical on every machine and build (the
// sweep's generated inputs): a fused multiply-add changes the last bits where the target
// has one (-march=native, aarch64), so contraction is switched off whatever the build
// flags say. A macro, because clang applies `#pragma clang fp` only in the file that
// spells it (checked: a pragma in this header left a vfmadd in the includer).
#pragma once

#if defined(__clang__)
#define AV_FP_CONTRACT_OFF _Pragma("clang fp contract(off)")
#elif defined(__GNUC__)
#define AV_FP_CONTRACT_OFF _Pragma("GCC optimize(\"fp-contract=off\")")
#else
#define AV_FP_CONTRACT_OFF
#endif
