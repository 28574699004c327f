/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols that scif.ko makes visible to its KUnit suites only.
 *
 * The suites live in their own modules under tests/kunit/ and reach into the
 * core through these exports. They sit in a symbol namespace of their own so
 * that no ordinary client can link against internals by accident, and they
 * vanish entirely from kernels built without KUnit.
 */
#ifndef SCIF_KUNIT_EXPORT_H
#define SCIF_KUNIT_EXPORT_H

#include <linux/export.h>
#include <linux/kconfig.h>

#if IS_ENABLED(CONFIG_KUNIT)
#define SCIF_EXPORT_FOR_KUNIT(sym) EXPORT_SYMBOL_NS_GPL(sym, SCIF_KUNIT)
#else
#define SCIF_EXPORT_FOR_KUNIT(sym)
#endif

#endif /* SCIF_KUNIT_EXPORT_H */
