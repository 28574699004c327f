// SPDX-License-Identifier: GPL-2.0
/*
 * SCIF_STREAM_MAP and SCIF_STREAM_WAKE: a connected endpoint's stream in
 * the process's memory (the core's side is core/scif_shm_view.c).
 *
 * The request returns a new file, one per call, whose mmap() offers two
 * parts at fixed offsets (<uapi/linux/scif_requests.h>): a read-write part
 * (the page of positions, the page of the peer's control block, the
 * peer's ring) and a read-only one (the page of our control block, our
 * ring). Pages are inserted at fault time (VM_PFNMAP): those across the
 * link write-combining, the others as ordinary memory.
 *
 * Each file gets an inode of its own, from a small internal filesystem,
 * so that zapping its mapping when the peer's memory must no longer be
 * written touches nobody else's. The file holds the endpoint and the
 * stream; a VMA holds the file.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/slab.h>
#include <uapi/linux/scif_requests.h>

#include "../core/scif_core.h"
#include "scif_fdev.h"

#define SCIF_STREAM_FS_MAGIC	0x53434653	/* "SCFS" */

static struct vfsmount *scif_stream_mnt;

/**
 * struct scif_stream_map - one file of SCIF_STREAM_MAP
 * @ep: the endpoint, with a reference
 * @view: the core's record of the file (and the stream, with a reference)
 */
struct scif_stream_map {
	struct scif_endpt *ep;
	struct scif_shm_view view;
};

/* Length of the read-write and of the read-only part. */
static u64 scif_stream_rw_len(const struct scif_shm_view *v)
{
	return 2 * PAGE_SIZE + (u64)v->tx_size;
}

static u64 scif_stream_ro_len(const struct scif_shm_view *v)
{
	return PAGE_SIZE + (u64)v->rx_size;
}

/* Which piece page @pgoff of the file is, and its index there; or -1. */
static int scif_stream_part(const struct scif_shm_view *v, pgoff_t pgoff,
			    unsigned long *idx)
{
	const pgoff_t ro = SCIF_STREAM_RO_OFFSET >> PAGE_SHIFT;

	if (pgoff >= ro) {
		pgoff -= ro;
		if (pgoff >= scif_stream_ro_len(v) >> PAGE_SHIFT)
			return -1;
		*idx = pgoff ? pgoff - 1 : 0;
		return pgoff ? SCIF_SHM_RING : SCIF_SHM_CTL;
	}
	if (pgoff >= scif_stream_rw_len(v) >> PAGE_SHIFT)
		return -1;
	*idx = pgoff >= 2 ? pgoff - 2 : 0;
	return pgoff >= 2 ? SCIF_SHM_PEER_RING :
	       pgoff ? SCIF_SHM_PEER_CTL : SCIF_SHM_USER;
}

static vm_fault_t scif_stream_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct scif_stream_map *map = vma->vm_file->private_data;
	pgprot_t prot = vma->vm_page_prot;
	unsigned long idx, pfn;
	vm_fault_t ret;
	int part;
	bool wc;

	part = scif_stream_part(&map->view, vmf->pgoff, &idx);
	if (part < 0)
		return VM_FAULT_SIGBUS;
	/* Held from the look at remote_ok to the insert: see the core. */
	scif_shm_view_lock(&map->view);
	pfn = scif_shm_view_pfn(&map->view, part, idx, &wc);
	if (wc)
		prot = pgprot_writecombine(prot);
	ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, prot);
	scif_shm_view_unlock(&map->view);
	return ret;
}

static const struct vm_operations_struct scif_stream_vm_ops = {
	.fault = scif_stream_fault,
};

/* Each part whole, shared, never executable; the read-only one read-only. */
static int scif_stream_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct scif_stream_map *map = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	vm_flags_t clear = VM_MAYEXEC;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (off == SCIF_STREAM_RO_OFFSET) {
		if (len != scif_stream_ro_len(&map->view))
			return -EINVAL;
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		clear |= VM_MAYWRITE;
	} else if (off != SCIF_STREAM_RW_OFFSET ||
		   len != scif_stream_rw_len(&map->view)) {
		return -EINVAL;
	}
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vm_flags_clear(vma, clear);
	vma->vm_ops = &scif_stream_vm_ops;
	return 0;
}

static int scif_stream_release(struct inode *inode, struct file *file)
{
	struct scif_stream_map *map = file->private_data;

	if (!map)
		return 0;
	scif_shm_view_del(&map->view);
	scif_ep_put(map->ep);
	kfree(map);
	return 0;
}

static const struct file_operations scif_stream_fops = {
	.owner = THIS_MODULE,
	.mmap = scif_stream_mmap,
	.release = scif_stream_release,
};

/* A file of its own inode, holding @map once it is returned. */
static struct file *scif_stream_file(struct scif_stream_map *map)
{
	struct inode *inode;
	struct file *file;

	/* The file's release drops a reference to the module: take it. */
	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	inode = alloc_anon_inode(scif_stream_mnt->mnt_sb);
	if (IS_ERR(inode)) {
		module_put(THIS_MODULE);
		return ERR_CAST(inode);
	}
	file = alloc_file_pseudo(inode, scif_stream_mnt, "scif-stream",
				 O_RDWR, &scif_stream_fops);
	if (IS_ERR(file)) {
		iput(inode);
		module_put(THIS_MODULE);
		return file;
	}
	file->private_data = map;
	return file;
}

/**
 * scif_fdev_stream_map() - SCIF_STREAM_MAP
 * @epd: the endpoint
 * @ureq: the caller's &struct scifioctl_stream_map
 *
 * Return: 0, -EFAULT, -EINVAL (flags), -EMFILE, -ENOMEM, -EINTR, or what
 * scif_shm_view_add() reports (-ENOTCONN, -EOPNOTSUPP).
 */
long scif_fdev_stream_map(scif_epd_t epd, void __user *ureq)
{
	struct scif_endpt *ep = epd;
	struct scifioctl_stream_map req;
	struct scif_stream_map *map;
	struct file *file;
	int fd, ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.flags)
		return -EINVAL;
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		return -ENOMEM;
	file = scif_stream_file(map);
	if (IS_ERR(file)) {
		kfree(map);
		return PTR_ERR(file);
	}
	map->view.mapping = file->f_mapping;
	ret = scif_shm_view_add(ep, &map->view);
	if (ret) {
		/* Not yet a view: the release must not undo one. */
		file->private_data = NULL;
		fput(file);
		kfree(map);
		return ret;
	}
	scif_ep_get(ep);
	map->ep = ep;
	file->private_data = map;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		fput(file);
		return fd;
	}
	req.fd = fd;
	req.rx_size = map->view.rx_size;
	req.tx_size = map->view.tx_size;
	req.rw_offset = SCIF_STREAM_RW_OFFSET;
	req.rw_len = scif_stream_rw_len(&map->view);
	req.ro_offset = SCIF_STREAM_RO_OFFSET;
	req.ro_len = scif_stream_ro_len(&map->view);
	req.attrs = map->view.tx_remote ? SCIF_STREAM_TX_REMOTE : 0;
	req.reserved = 0;
	if (copy_to_user(ureq, &req, sizeof(req))) {
		put_unused_fd(fd);
		fput(file);
		return -EFAULT;
	}
	fd_install(fd, file);
	return 0;
}

/**
 * scif_fdev_stream_wake() - SCIF_STREAM_WAKE
 * @epd: the endpoint
 *
 * Return: as scif_stream_user_wake().
 */
long scif_fdev_stream_wake(scif_epd_t epd)
{
	return scif_stream_user_wake(epd);
}

static int scif_stream_init_fs(struct fs_context *fc)
{
	return init_pseudo(fc, SCIF_STREAM_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type scif_stream_fs = {
	.name = "scif-stream",
	.init_fs_context = scif_stream_init_fs,
	.kill_sb = kill_anon_super,
};

/**
 * scif_stream_map_init() - mount the filesystem of the stream files
 *
 * Return: 0, or the error of kern_mount().
 */
int scif_stream_map_init(void)
{
	scif_stream_mnt = kern_mount(&scif_stream_fs);
	return PTR_ERR_OR_ZERO(scif_stream_mnt);
}

/**
 * scif_stream_map_exit() - unmount it; no stream file is left (each pins
 *			    the module)
 */
void scif_stream_map_exit(void)
{
	kern_unmount(scif_stream_mnt);
}
