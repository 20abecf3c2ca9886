/* The pages the docs tests read, and `make fixtures` writes the counts of
 * (docs_pages.h): README.md, then the .md files of docs/. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs_pages.h"

char docs_pages[MAX_PAGES][256];
size_t docs_n_pages;

void docs_find_pages(void) {
    if (docs_n_pages)
        return;
    snprintf(docs_pages[docs_n_pages++], sizeof docs_pages[0], "README.md");
    DIR *d = opendir("docs");
    if (!d)
        return;
    for (struct dirent *ent; (ent = readdir(d)) && docs_n_pages < MAX_PAGES;) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && strcmp(ent->d_name + len - 3, ".md") == 0)
            snprintf(docs_pages[docs_n_pages++], sizeof docs_pages[0], "docs/%s", ent->d_name);
    }
    closedir(d);
    /* readdir's order is the file system's; sort for stable loop indices */
    qsort(docs_pages + 1, docs_n_pages - 1, sizeof docs_pages[0],
          (int (*)(const void *, const void *))strcmp);
}
