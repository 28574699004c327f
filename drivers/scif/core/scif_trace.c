// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the SCIF tracepoints (core/scif_trace.h) once for scif.ko.
 */
#define CREATE_TRACE_POINTS
#include "scif_trace.h"
