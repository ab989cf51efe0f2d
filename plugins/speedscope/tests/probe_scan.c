/* probe_scan PLUGIN_DIR FILE...: the reader tconv would pick for each file, as "reader<TAB>file"
 * ("-" when none), from the file's first 4096 bytes after gzip, the least a probe is given. It
 * runs the loaded plugins' probes through the host's own detection, without reading the files
 * whole, so that a test can sweep the whole corpus for readers that claim others' inputs. */
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include <tconv/host.h>
#include <tconv/plugin.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: probe_scan PLUGIN_DIR FILE...\n");
        return 2;
    }
    tconv_host *h = tconv_host_new(NULL);
    if (!h || tconv_host_load_dir(h, argv[1]) < 0) {
        fprintf(stderr, "probe_scan: cannot load the plugins of %s\n", argv[1]);
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        unsigned char buf[4096];
        gzFile f = gzopen(argv[i], "rb"); /* reads plain files as they are */
        int n = f ? gzread(f, buf, sizeof buf) : -1;
        if (f) gzclose(f);
        if (n < 0) {
            fprintf(stderr, "probe_scan: cannot read %s\n", argv[i]);
            rc = 1;
            continue;
        }
        const tconv_reader_class *c = tconv_host_detect(h, buf, (size_t)n, argv[i]);
        printf("%s\t%s\n", c ? c->name : "-", argv[i]);
    }
    tconv_host_free(h);
    return rc;
}
