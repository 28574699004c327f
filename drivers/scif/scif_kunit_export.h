/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols that scif.ko makes visible to its KUnit suites only.
 *
 * The suites live in their own modules under tests/kunit/ and reach into the
 * core through these exports. They sit in a symbol namespace of their own so
 * that no ordinary client can link against internals by accident, and they
 * vanish entirely from kernels built without KUnit.
 *
 * The name starts with EXPORT_SYMBOL so that checkpatch treats it like the
 * kernel's own export macros (it directly follows the function it exports).
 */
#ifndef SCIF_KUNIT_EXPORT_H
#define SCIF_KUNIT_EXPORT_H

#include <linux/export.h>
#include <linux/kconfig.h>

#if IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_FOR_SCIF_KUNIT(sym) EXPORT_SYMBOL_NS_GPL(sym, SCIF_KUNIT)
#else
/* Leaves a harmless declaration behind, so that the trailing ; is legal. */
#define EXPORT_SYMBOL_FOR_SCIF_KUNIT(sym) struct scif_kunit_unexported_##sym
#endif

#endif /* SCIF_KUNIT_EXPORT_H */
