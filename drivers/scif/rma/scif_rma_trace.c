// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the RMA layer's tracepoints (rma/scif_rma_trace.h) once for
 * scif.ko.
 */
#define CREATE_TRACE_POINTS
#include "scif_rma_trace.h"
