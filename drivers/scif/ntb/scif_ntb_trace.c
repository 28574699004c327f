// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the NTB transport's tracepoints (scif_ntb_trace.h) once for
 * scif_ntb.ko.
 */
#define CREATE_TRACE_POINTS
#include "scif_ntb_trace.h"
