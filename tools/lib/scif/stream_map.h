/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libscif internals: the stream of a connected endpoint moved through
 * memory the driver maps into the process (SCIF_STREAM_MAP), and the
 * ioctl path it falls back to. Nothing here is exported.
 */
#ifndef LIBSCIF_STREAM_MAP_H
#define LIBSCIF_STREAM_MAP_H

#define LIBSCIF_HIDDEN __attribute__((visibility("hidden")))

struct scif_stream;

/* SCIF_SEND or SCIF_RECV as a plain ioctl (libscif.c). */
LIBSCIF_HIDDEN int libscif_msg(int fd, unsigned long request, void *msg,
			       int len, int flags);

/*
 * The mapped stream of @fd, mapping it on first use; NULL when the ioctls
 * must do (not connected, a kernel or stream without the mapping, or
 * SCIF_STREAM_MAP=0 in the environment).
 */
LIBSCIF_HIDDEN struct scif_stream *libscif_stream_get(int fd);

/*
 * scif_send() and scif_recv() through @s, for 0 < @len, a non-NULL @msg
 * and flags of SCIF_SEND_BLOCK or SCIF_RECV_BLOCK only.
 */
LIBSCIF_HIDDEN int libscif_stream_send(struct scif_stream *s, int fd,
				       void *msg, int len, int flags);
LIBSCIF_HIDDEN int libscif_stream_recv(struct scif_stream *s, int fd,
				       void *msg, int len, int flags);

/* Unmap and forget what is known of @fd: it is closed or new. */
LIBSCIF_HIDDEN void libscif_stream_forget(int fd);

#endif /* LIBSCIF_STREAM_MAP_H */
